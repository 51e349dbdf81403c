/**
 * Time is the behaviour here: uWebSockets.js enforces the 10 s limit on request line and headers itself
 * (its timer ticks every 4 s, so the cut lands between 8 and 12 s), and also cuts a body arriving slower
 * than 16 KB/s within the same window. Both clients run at once, so this file takes about 12 s.
 */
import t from 'tap';
import { echo, rawClient, startHarness } from './fixtures/gateway-harness.js';

t.test('a client trickling its headers is cut by the transport after about 10 s, unanswered', async (t) => {
  const h = await startHarness({ routes: [echo('POST', '/webhooks/tracker-a')] });
  t.teardown(() => h.gw.close());

  const headers = await rawClient(h.gw.port);
  headers.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
  const headerDrip = setInterval(() => headers.socket.write('X-Drip: 1\r\n'), 500);

  const body = await rawClient(h.gw.port);
  body.socket.write('POST /webhooks/tracker-a HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx');
  const bodyDrip = setInterval(() => body.socket.write('x'), 500);

  const [headersCut, bodyCut] = await Promise.all([headers.closed, body.closed]);
  clearInterval(headerDrip);
  clearInterval(bodyDrip);

  t.ok(headersCut >= 7_500 && headersCut <= 13_500, `headers cut after ${Math.round(headersCut)} ms`);
  t.equal(headers.received(), '', 'no answer to unfinished headers');
  t.ok(bodyCut >= 7_500 && bodyCut <= 13_500, `slow body cut after ${Math.round(bodyCut)} ms`);
  t.equal(body.received(), '', 'the transport cuts a slow body without an answer');
  const line = await h.waitForLog((l) => l.event === 'client_disconnected');
  t.equal(line.phase, 'body');
  t.ok(Number(line.received) > 0 && Number(line.received) < 1000);
});
