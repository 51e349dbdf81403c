/**
 * The `agent` question's merge (http/scatter.merges.ts): the seat's row is the asker's, its `llm_history`
 * is joined from every node that answered — one row per (turn, phase, iteration, launch), newest first,
 * at most the read model's 50.
 */
import t from 'tap';
import { fleetMerges } from '../../http/index.js';

const merge = fleetMerges.get('agent')!;
const params = new URLSearchParams({ id: 'ada' });

interface Row {
  turn_id: string;
  phase: string;
  iteration: number;
  timestamp: string;
  launch_id?: string;
  response?: string;
}
const row = (turn: string, phase: string, timestamp: string, more: Partial<Row> = {}): Row => ({
  turn_id: turn,
  phase,
  iteration: 0,
  timestamp,
  ...more,
});
const agent = (activity: string, llm_history: Row[]) => ({ id: 'ada', activity, llm_history });
const ids = (answer: unknown) =>
  (answer as { llm_history: Row[] }).llm_history.map((r) => `${r.turn_id}/${r.phase}${r.launch_id ?? ''}`);

t.test('history rows of every node are joined once each, newest first; the row is the asker’s', async (t) => {
  // n1 restarted: its seed kept the newest turn only; n2 holds the older turns too.
  const n1 = agent('working', [row('t3', 'plan', '2026-11-25T10:03:00Z')]);
  const n2 = agent('idle', [
    row('t3', 'plan', '2026-11-25T10:03:00Z'),
    row('t2', 'review', '2026-11-25T10:02:30Z'),
    row('t2', 'plan', '2026-11-25T10:02:00Z'),
    row('t1', 'plan', '2026-11-25T10:01:00Z'),
  ]);
  const merged = merge(
    [
      { node: 'n1', answer: n1 },
      { node: 'n2', answer: n2 },
    ],
    params,
  ) as { activity: string };
  t.same(ids(merged), ['t3/plan', 't2/review', 't2/plan', 't1/plan']);
  t.equal(merged.activity, 'working', 'the seat row is the asking node’s');
});

t.test('a row is identified by turn, phase, iteration and launch; the newest copy stands', async (t) => {
  const n1 = agent('idle', [
    row('t1', 'execute', '2026-11-25T10:01:00Z', { response: 'first copy' }),
    row('t1', 'sandbox', '2026-11-25T10:00:30Z', { launch_id: '-a' }),
  ]);
  const n2 = agent('idle', [
    row('t1', 'execute', '2026-11-25T10:01:05Z', { response: 'refolded' }),
    row('t1', 'execute', '2026-11-25T10:00:50Z', { iteration: 1 }),
    row('t1', 'sandbox', '2026-11-25T10:00:40Z', { launch_id: '-b' }),
    row('t1', 'sandbox', '2026-11-25T10:00:30Z', { launch_id: '-a' }),
  ]);
  const merged = merge(
    [
      { node: 'n1', answer: n1 },
      { node: 'n2', answer: n2 },
    ],
    params,
  ) as { llm_history: Row[] };
  t.same(ids(merged), ['t1/execute', 't1/execute', 't1/sandbox-b', 't1/sandbox-a']);
  t.same(
    merged.llm_history.map((r) => r.iteration),
    [0, 1, 0, 0],
  );
  t.equal(merged.llm_history[0]!.response, 'refolded', 'the copy with the newest stamp');
});

t.test('rows are ordered by instant whatever the encoding; an unreadable stamp sorts last', async (t) => {
  const n1 = agent('idle', [row('t9', 'plan', 'not a time'), row('t2', 'plan', '2026-12-03T14:45:00Z')]);
  const n2 = agent('idle', [
    row('t1', 'plan', '2026-12-03T15:40:00+01:00'),
    row('t3', 'plan', '2026-12-03T16:50:00+02:00'),
  ]);
  const merged = merge(
    [
      { node: 'n1', answer: n1 },
      { node: 'n2', answer: n2 },
    ],
    params,
  );
  // 14:50Z (written +02:00), 14:45Z, 14:40Z (written +01:00), then the unreadable one.
  t.same(ids(merged), ['t3/plan', 't2/plan', 't1/plan', 't9/plan']);
});

t.test('the joined history is cut to the newest 50 rows, as the read model keeps them', async (t) => {
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 10, minute)).toISOString();
  const older = Array.from({ length: 50 }, (_, k) => row(`old-${k}`, 'plan', at(50 - k)));
  const newer = Array.from({ length: 30 }, (_, k) => row(`new-${k}`, 'plan', at(200 - k)));
  const merged = merge(
    [
      { node: 'n1', answer: agent('idle', older) },
      { node: 'n2', answer: agent('idle', newer) },
    ],
    params,
  );
  const kept = ids(merged);
  t.equal(kept.length, 50);
  t.same(kept.slice(0, 31), [...newer.map((r) => `${r.turn_id}/plan`), 'old-0/plan']);
  t.equal(kept[49], 'old-19/plan');
});

t.test('a node alone answers its own row untouched', async (t) => {
  const mine = agent('idle', [row('t1', 'plan', 'not a time'), row('t2', 'plan', '2026-11-25T10:02:00Z')]);
  t.equal(merge([{ node: 'n1', answer: mine }], params), mine);
});
