/**
 * A bare uWebSockets.js hello-world: the baseline `scripts/bench/gateway.ts` measures the gateway against.
 * Lives here because only http/ may import uWebSockets.js.
 */
import uws from '@trufflesuite/uws-js-unofficial';
import { GatewayListenError } from '../gateway.js';

export interface BareServer {
  readonly port: number;
  close(): void;
}

/** Answers every request with `200 hello` and nothing else. */
export function startBareHelloServer(host: string, port: number): Promise<BareServer> {
  const app = uws.App() as BareApp;
  app.any('/*', (res) => {
    res.end('hello');
  });
  return listenBare(app, host, port);
}

/** A uWebSockets.js app with the `close` this build has and its typings lack. */
export type BareApp = ReturnType<typeof uws.App> & { close(): void };

/** Listens; `close` stops listening and closes the app's sockets. */
export function listenBare(app: BareApp, host: string, port: number): Promise<BareServer> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (socket === false) return reject(new GatewayListenError(host, port));
      resolve({
        port: uws.us_socket_local_port(socket),
        close: () => {
          uws.us_listen_socket_close(socket);
          app.close();
        },
      });
    });
  });
}
