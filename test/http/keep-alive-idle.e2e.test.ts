/**
 * Spec Limits "keep-alive idle": a built `svc serve` keeps a connection open for its next request, and
 * closes one left idle as README's Known limits says: uWebSockets.js's fixed 10 s (its timer ticks every
 * 4 s, so 8–12 s after the last answer), not the spec's 60 s. Time is the behaviour here (about 12 s).
 */
import { once } from 'node:events';
import t from 'tap';
import { openConnection } from '../harness/raw-http.js';
import { startNode } from '../harness/serve-node.js';

t.test('an idle keep-alive connection is reused, then closed 8–12 s after its last answer', async (t) => {
  const node = await startNode(t);
  const conn = await openConnection(node.port);
  const closed = once(conn.socket, 'close');
  t.equal((await conn.request('GET', '/health')).status, 200);
  const again = await conn.request('GET', '/health');
  t.equal(again.status, 200, 'the same connection answers a second request');
  t.notMatch(again.headers['connection'] ?? '', /close/i, 'and is not announced closed');
  const answered = Date.now();
  await closed;
  const idle = Date.now() - answered;
  t.ok(idle >= 7_500 && idle <= 13_500, `closed after ${idle} ms idle`);
});
