/**
 * A TCP proxy in front of a nats-server that forwards a client's traffic until, once armed, the client
 * publishes a matching message: that publish and everything the client sends after it on that connection
 * are dropped, and `arm`'s promise resolves. The server then holds the process's state up to the instant
 * before that publish, which is what a kill -9 there leaves; the test kills the process next.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { opLength } from './pull-gate.js';

export interface PublishGate {
  readonly url: string;
  /** Freezes the first connection whose next publish (subject and raw bytes) matches; resolves with its subject. */
  arm(match: (subject: string, op: Buffer) => boolean): Promise<string>;
  close(): Promise<void>;
}

export async function startPublishGate(
  target: { host: string; port: number },
  opts: { t?: { teardown(fn: () => unknown): void } } = {},
): Promise<PublishGate> {
  let armed: { match: (subject: string, op: Buffer) => boolean; hit: (subject: string) => void } | null =
    null;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    let pending = Buffer.alloc(0);
    let frozen = false;
    client.on('data', (chunk: Buffer) => {
      if (frozen) return;
      pending = Buffer.concat([pending, chunk]);
      for (let op = opLength(pending); op; op = opLength(pending)) {
        const bytes = pending.subarray(0, op.length);
        pending = pending.subarray(op.length);
        if (armed !== null && op.subject !== null && armed.match(op.subject, bytes)) {
          const { hit } = armed;
          armed = null;
          frozen = true;
          hit(op.subject);
          return;
        }
        upstream.write(bytes);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const gate: PublishGate = {
    url: `nats://127.0.0.1:${port}`,
    arm: (match) => new Promise<string>((hit) => (armed = { match, hit })),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  opts.t?.teardown(() => gate.close());
  return gate;
}
