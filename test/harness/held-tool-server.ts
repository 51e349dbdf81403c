/**
 * A remote tool server (MCP over HTTP) that holds every request until released, then refuses them all: an
 * apply that adds it waits on its handshake (posture `wait`) until `release()`, and then goes on without it.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface HeldToolServer {
  /** Its MCP endpoint, for a revision's `mcp_servers[].url`. */
  readonly url: string;
  /** Settles when the first request arrives (the node is holding its apply on it). */
  readonly asked: Promise<void>;
  /** Answers every held request, and every later one, with `status`. */
  release(): void;
}

export async function heldToolServer(t: Test, status = 404): Promise<HeldToolServer> {
  const held: ServerResponse[] = [];
  let released = false;
  let arrived: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (arrived = resolve));
  const refuse = (res: ServerResponse): void => void res.writeHead(status).end();
  const server = createServer((req, res) => {
    req.resume();
    if (released) refuse(res);
    else held.push(res);
    arrived();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    asked,
    release() {
      released = true;
      for (const res of held.splice(0)) refuse(res);
    },
  };
}
