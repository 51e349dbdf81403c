/**
 * A TCP proxy on loopback in front of one server, to partition a process from it: `blackhole()` stops
 * forwarding in both directions (the connections stay open and what is sent is lost, as on a cut
 * link), `restore()` forwards again, and `cut()` ends every connection (as a partition that outlived
 * the peers' TCP timeouts does).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  /** `nats://127.0.0.1:<port>` style address of the proxy, with the scheme given to `startTcpProxy`. */
  readonly url: string;
  readonly port: number;
  blackhole(): void;
  restore(): void;
  /** Ends every open connection (new ones are still accepted). */
  cut(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(
  target: { host: string; port: number },
  opts: { scheme?: string; t?: { teardown(fn: () => unknown): void } } = {},
): Promise<TcpProxy> {
  let holed = false;
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    track(client);
    track(upstream);
    client.on('data', (chunk) => {
      if (!holed) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!holed) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const cut = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  const proxy: TcpProxy = {
    url: `${opts.scheme ?? 'tcp'}://127.0.0.1:${port}`,
    port,
    blackhole: () => {
      holed = true;
    },
    restore: () => {
      holed = false;
    },
    cut,
    close: () =>
      new Promise<void>((resolve) => {
        cut();
        server.close(() => resolve());
      }),
  };
  opts.t?.teardown(() => proxy.close());
  return proxy;
}
