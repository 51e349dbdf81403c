/**
 * `/ws/stream` at the byte level: who may open it (Origin, repeated credentials), what it answers in the
 * handshake (subprotocols, RFC 6455 4.2.2), and how it closes (oversized frames, token guessing).
 */
import t from 'tap';
import { startEventsNode, type Frame } from './fixtures/events-node.js';
import { rawWebSocket, type RawUpgrade } from '../harness/ws-raw.js';

const portOf = (ws: string): number => Number(new URL(ws).port);

/** Reads text messages until one `match` accepts. */
async function until(u: RawUpgrade, match: (f: Frame) => boolean): Promise<Frame> {
  for (;;) {
    const frame = JSON.parse(await u.nextText()) as Frame;
    if (match(frame)) return frame;
  }
}

t.test(
  'a browser page of another origin is refused the socket; same origin and no Origin open it',
  async (t) => {
    const { ws, h } = await startEventsNode(t);
    const port = portOf(ws);
    for (const origin of ['http://evil.example', `http://evil.example:${port}`, 'null', 'not a url']) {
      const u = await rawWebSocket(port, '/ws/stream', [['Origin', origin]]);
      u.destroy();
      t.equal(u.status, 403, `Origin ${origin} is refused`);
      t.match(JSON.parse(u.body), { error: 'cross_origin', detail: String, hint: String });
    }
    // The request line's own host, as a browser on the node's page sends it (default ports folded).
    for (const [origin, host] of [
      [`http://127.0.0.1:${port}`, `127.0.0.1:${port}`],
      [`http://LOCALHOST:${port}`, `localhost:${port}`],
      ['https://svc.example.com', 'svc.example.com:443'],
      ['http://svc.example.com', 'svc.example.com'],
    ] as const) {
      const u = await rawWebSocket(port, '/ws/stream', [['Origin', origin]], host);
      t.equal(u.status, 101, `Origin ${origin} with Host ${host} opens`);
      t.equal((await until(u, () => true)).kind, 'snapshot');
      u.destroy();
    }
    const cli = await rawWebSocket(port, '/ws/stream');
    t.equal(cli.status, 101, 'a client that sends no Origin (CLI, scripts) opens');
    cli.destroy();
    const line = await h.waitForLog((l) => l.msg === 'request' && l.status === 403);
    t.match(line, { path: '/ws/stream', event: 'cross_origin' });
  },
);
