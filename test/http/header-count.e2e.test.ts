/**
 * Header count and request-target form on the transport. This build of uWebSockets.js reads at most 48
 * header fields (`Host` included) and only the origin form of the request target; a request with a 49th
 * field, with an absolute-form target, or with lines ending in a bare LF, is never handed to the node: no
 * answer, the connection closed after the transport's header timeout (about 10–12 s). README "Known limits" says so; this test pins it,
 * so a transport that lifts the limit fails here and the README line goes.
 */
import t from 'tap';
import { rawClient, startHarness } from './fixtures/gateway-harness.js';

/** The first bytes the server sends (or '' when it sends none), and how long until it closed. */
async function ask(port: number, text: string): Promise<{ received: string; closedAfterMs: number }> {
  const client = await rawClient(port);
  client.socket.write(text);
  const closedAfterMs = await client.closed;
  return { received: client.received(), closedAfterMs };
}

/** GET /health with `Host`, `Connection` and `extra` more fields. */
const withFields = (extra: number): string =>
  `GET /health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: extra }, (_, i) => `X-F${i}: v\r\n`).join('')}Connection: close\r\n\r\n`;

t.test(
  '48 header fields are answered; a 49th, an absolute-form target or bare LFs get no answer (known limit)',
  async (t) => {
    const h = await startHarness();
    t.teardown(() => h.gw.close());
    const [fits, over, absolute, bareLf] = await Promise.all([
      ask(h.gw.port, withFields(46)),
      ask(h.gw.port, withFields(47)),
      ask(h.gw.port, `GET http://x/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      ask(h.gw.port, `GET /health HTTP/1.1\nHost: x\nConnection: close\n\n`),
    ]);
    t.match(fits.received, /^HTTP\/1\.1 200 /, '48 fields: answered');
    t.equal(over.received, '', '49 fields: no answer');
    t.ok(over.closedAfterMs > 5_000, '49 fields: held until the header timeout');
    t.equal(absolute.received, '', 'absolute form: no answer');
    t.ok(absolute.closedAfterMs > 5_000, 'absolute form: held until the header timeout');
    t.equal(bareLf.received, '', 'lines ending in a bare LF: no answer');
  },
);
