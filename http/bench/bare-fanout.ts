/**
 * A bare uWebSockets.js fan-out: every socket on any path receives each text given to `broadcast`, sent
 * one socket at a time as the stream hub does, with no guard, queue or snapshot. The baseline
 * `scripts/bench/dashboard.ts` measures the node's frame delay against. Lives here because only http/ may
 * import uWebSockets.js.
 */
import uws, { type WebSocket } from '@trufflesuite/uws-js-unofficial';
import { GatewayListenError } from '../gateway.js';

export interface BareFanout {
  readonly port: number;
  /** Sockets open now. */
  count(): number;
  broadcast(text: string): void;
  close(): void;
}

export function startBareFanout(host: string, port: number): Promise<BareFanout> {
  const app = uws.App() as ReturnType<typeof uws.App> & { close(): void };
  const sockets = new Set<WebSocket<unknown>>();
  app.ws('/*', {
    compression: uws.DISABLED,
    maxPayloadLength: 64 * 1024,
    open: (ws) => void sockets.add(ws),
    close: (ws) => void sockets.delete(ws),
  });
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (socket === false) return reject(new GatewayListenError(host, port));
      resolve({
        port: uws.us_socket_local_port(socket),
        count: () => sockets.size,
        broadcast: (text) => {
          for (const ws of sockets) ws.send(text, false, false);
        },
        close: () => {
          uws.us_listen_socket_close(socket);
          app.close();
        },
      });
    });
  });
}
