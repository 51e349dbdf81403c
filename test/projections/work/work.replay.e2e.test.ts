/**
 * Replay equals live: the work state a node folded while the changes happened is the state a fresh
 * projection rebuilds from the stream, and `rebuild()` on the live one lands on it too.
 */
import t from 'tap';
import { followWork } from '../../../projections/index.js';
import type { WorkState } from '../../../schema/index.js';
import { OPS, call } from '../../http/fixtures/gateway-harness.js';
import { startWorkHarness } from '../../http/fixtures/work-harness.js';

const post = (url: string, body: unknown, method = 'POST') =>
  call(url, {
    method,
    headers: { authorization: OPS, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const id = (v: unknown): unknown => (v !== null && typeof v === 'object' && 'id' in v ? v.id : v);
const ids = (v: unknown): unknown =>
  v instanceof Map
    ? [...(v as Map<unknown, unknown>)].map(([k, x]) => [id(k), ids(x)])
    : v instanceof Set || Array.isArray(v)
      ? [...(v as Iterable<unknown>)].map(id)
      : id(v);

const snapshot = (s: WorkState): string =>
  JSON.stringify({
    items: [...s.items.values()],
    keys: [...s.keys],
    counters: [...s.counters],
    ops: [...s.ops],
    activity: s.activity.rows(),
    everKeys: [...s.everKeys],
    lastChange: [...s.lastChange],
    // The indexes the reads narrow by are part of what a replay must land on (items named by id).
    index: Object.entries(s.index).map(([name, value]: [string, unknown]) => [name, ids(value)]),
    seq: s.seq,
  });

t.test('the work projection rebuilt by replay equals the live one', async (t) => {
  const w = await startWorkHarness(t);
  await post(`${w.base}/work`, { project: 'ENG', title: 'One', assignees: ['coder'] });
  await post(`${w.base}/work`, {
    project: 'ENG',
    title: 'Two',
    links: [{ kind: 'blocked_by', item: 'ENG-1' }],
  });
  await post(`${w.base}/work`, { project: 'OPS', title: 'Three' });
  await post(`${w.base}/work/ENG-1/move`, { to: 'in_progress' });
  await post(`${w.base}/work/ENG-1/comments`, { body: 'on it @ada' });
  await post(`${w.base}/work/ENG-2`, { priority: 'urgent', watchers: ['ada'] }, 'PATCH');
  await post(`${w.base}/work/OPS-1/purge`, { confirm: 'OPS-1', project: 'OPS', reason: 'test' });
  const live = snapshot(w.view.state());
  t.ok(
    w.view.state().items.size === 2 && w.view.state().activity.rows().length > 0,
    'the live state has content',
  );
  const replayed = await followWork({ bus: w.bus });
  t.teardown(() => replayed.stop());
  t.equal(snapshot(replayed.state()), live, 'a fresh replay folds to the same state');
  await w.view.running.rebuild();
  t.equal(snapshot(w.view.state()), live, 'a rebuild folds to the same state');
});
