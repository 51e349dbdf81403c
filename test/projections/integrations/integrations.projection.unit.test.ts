import t from 'tap';
import {
  applyIntegrationRecord,
  arrivalsOf,
  emptyIntegrationsState,
  getPassRun,
  integrationsProjection,
  listPassRuns,
  RUNS_KEPT,
  type IntegrationsState,
} from '../../../projections/index.js';
import type { PassRun } from '../../../schema/index.js';

const arrival = (surface: string, outcome: string, at: string, count?: number) => ({
  type: 'arrival',
  surface,
  outcome,
  at,
  node: 'n1',
  ...(count === undefined ? {} : { count }),
});
const run = (id: string, kind = 'tracker-b', status: 'succeeded' | 'failed' = 'succeeded'): PassRun => ({
  id,
  kind,
  mode: 'check',
  node: 'n1',
  actor: 'op',
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: '2026-01-01T00:00:01.000Z',
  status,
  reason: status === 'failed' ? 'tracker-b: refused' : null,
  steps: [],
});
const started = (id: string, kind = 'tracker-b') => ({
  type: 'pass_started',
  run_id: id,
  kind,
  mode: 'check',
  node: 'n1',
  actor: 'op',
  started_at: '2026-01-01T00:00:00.000Z',
});
/** Folds `records` at sequences 1, 2, ... */
const fold = (...records: unknown[]): IntegrationsState =>
  records.reduce<IntegrationsState>(
    (s, r, i) => applyIntegrationRecord(s, r, i + 1),
    emptyIntegrationsState(),
  );
/** Folds records at the sequences given, as a node reads a stream some records are gone from. */
const foldAt = (...records: Array<[number, unknown]>): IntegrationsState =>
  records.reduce<IntegrationsState>(
    (s, [seq, r]) => applyIntegrationRecord(s, r, seq),
    emptyIntegrationsState(),
  );

t.test('arrivals add up per surface and outcome, and the newest instants win', async (t) => {
  const state = fold(
    arrival('tracker-a', 'accepted', '2026-01-01T00:00:02.000Z'),
    arrival('tracker-a', 'accepted', '2026-01-01T00:00:01.000Z'),
    arrival('tracker-a', 'duplicate', '2026-01-01T00:00:03.000Z'),
    arrival('tracker-a', 'refused', '2026-01-01T00:00:04.000Z', 5),
    arrival('tracker-a', 'not_configured', '2026-01-01T00:00:05.000Z', 2),
    arrival('chat/alice', 'accepted', '2026-01-01T00:00:06.000Z'),
  );
  t.same(arrivalsOf(state, 'tracker-a'), {
    accepted: 2,
    duplicates: 1,
    refused: 5,
    not_configured: 2,
    last_accepted_at: '2026-01-01T00:00:02.000Z',
    last_refused_at: '2026-01-01T00:00:04.000Z',
  });
  t.equal(arrivalsOf(state, 'chat/alice').accepted, 1);
  t.same(arrivalsOf(state, 'wiki'), {
    accepted: 0,
    duplicates: 0,
    refused: 0,
    not_configured: 0,
    last_accepted_at: null,
    last_refused_at: null,
  });
});

t.test('records that are not well formed are skipped, never thrown', async (t) => {
  const state = fold(
    null,
    'text',
    { type: 'arrival', surface: '' },
    { type: 'other' },
    arrival('monitor', 'accepted', 'x'),
  );
  t.equal(arrivalsOf(state, 'monitor').accepted, 1);
  t.equal(state.arrivals.size, 1);
});

t.test('a start waits for its finish; finished passes list newest first per kind', async (t) => {
  const state = fold(started('a'), started('b'), { type: 'pass_finished', run: run('a') });
  t.same([...state.started.keys()], ['b'], 'b is still in flight');
  const more = applyIntegrationRecord(
    state,
    { type: 'pass_finished', run: run('b', 'tracker-b', 'failed') },
    4,
  );
  applyIntegrationRecord(more, { type: 'pass_finished', run: run('c', 'wiki') }, 5);
  t.same(
    listPassRuns(more, 'tracker-b', { limit: 10 }).runs.map((r) => r.id),
    ['b', 'a'],
  );
  t.same(
    listPassRuns(more, 'wiki', { limit: 10 }).runs.map((r) => r.id),
    ['c'],
  );
  t.equal(getPassRun(more, 'tracker-b', 'b')?.status, 'failed');
  t.equal(getPassRun(more, 'wiki', 'b'), null, 'a run is found under its own kind only');
  t.equal(more.started.size, 0);
});

t.test('a repeated finish is folded once', async (t) => {
  const state = fold({ type: 'pass_finished', run: run('a') }, { type: 'pass_finished', run: run('a') });
  t.equal(listPassRuns(state, 'tracker-b', { limit: 10 }).runs.length, 1);
});

t.test(
  'pages: ten at a time after a cursor; an unknown cursor pages empty; kept runs are bounded',
  async (t) => {
    const records = Array.from({ length: RUNS_KEPT + 5 }, (_, i) => ({
      type: 'pass_finished',
      run: run(`r${i}`),
    }));
    const state = fold(...records);
    const first = listPassRuns(state, 'tracker-b', { limit: 10 });
    t.equal(first.runs[0]?.id, `r${RUNS_KEPT + 4}`);
    t.equal(first.more, true);
    const second = listPassRuns(state, 'tracker-b', { before: first.runs[9]!.id, limit: 10 });
    t.equal(second.runs[0]?.id, `r${RUNS_KEPT - 6}`);
    t.same(listPassRuns(state, 'tracker-b', { before: 'nope', limit: 10 }), { runs: [], more: false });
    t.equal(state.runs.get('tracker-b')?.length, RUNS_KEPT);
  },
);

t.test('the webhooks a kind registered are the newest list recorded, kept by a checkpoint', async (t) => {
  const hooks = (kind: string, list: Array<{ url: string; id: string }>) => ({
    type: 'webhooks',
    kind,
    hooks: list,
    run_id: 'r',
    at: '2026-01-01T00:00:00.000Z',
  });
  const a = { url: 'https://old.example.test/webhooks/tracker-b', id: 'wh-1' };
  const b = { url: 'https://new.example.test/webhooks/tracker-b', id: 'wh-2' };
  const state = fold(hooks('tracker-b', [a]), hooks('tracker-b', [a, b]), hooks('codehost-b', [b]));
  t.same(state.webhooks.get('tracker-b'), [a, b]);
  const codec = integrationsProjection.checkpoint!;
  const loaded = codec.load(JSON.parse(JSON.stringify(codec.save(state))));
  t.same(loaded?.webhooks.get('tracker-b'), [a, b]);
  t.same(loaded?.webhooks.get('codehost-b'), [b]);
  const removed = applyIntegrationRecord(state, hooks('tracker-b', []), 4);
  t.notOk(removed.webhooks.has('tracker-b'), 'an empty list forgets the kind');
});

t.test('a checkpoint round trip gives the same answers as the fold', async (t) => {
  const state = fold(arrival('tracker-a', 'accepted', '2026-01-01T00:00:02.000Z'), started('b'), {
    type: 'pass_finished',
    run: run('a'),
  });
  const codec = integrationsProjection.checkpoint!;
  const loaded = codec.load(JSON.parse(JSON.stringify(codec.save(state))));
  t.ok(loaded);
  t.same(arrivalsOf(loaded!, 'tracker-a'), arrivalsOf(state, 'tracker-a'));
  t.same(listPassRuns(loaded!, 'tracker-b', { limit: 10 }), listPassRuns(state, 'tracker-b', { limit: 10 }));
  t.same([...loaded!.started.keys()], ['b']);
  t.same(loaded!.sinceRollup, state.sinceRollup, 'the arrival records since the newest rollup too');
  t.equal(loaded!.sinceRollup.length, 1);
  t.equal(codec.load({ arrivals: 'no' }), null, 'an unreadable checkpoint replays from zero');
  t.equal(
    codec.load({ arrivals: [], runs: [], started: [], since_rollup: 0 }),
    null,
    'one of the count since the newest rollup (version 2) replays from zero',
  );
});

t.test(
  'a rollup takes the place of the arrivals before it: the counts read the same with or without them',
  async (t) => {
    const before = [
      arrival('tracker-a', 'accepted', '2026-01-01T00:00:02.000Z'),
      arrival('tracker-a', 'refused', '2026-01-01T00:00:03.000Z', 4),
      started('b'),
      arrival('chat/ada', 'duplicate', '2026-01-01T00:00:04.000Z'),
    ];
    const whole = fold(...before);
    t.equal(whole.sinceRollup.length, 3);
    const rollup = {
      type: 'arrivals_rollup',
      through: 4,
      surfaces: Object.fromEntries(whole.arrivals),
      at: '2026-01-01T00:01:00.000Z',
      node: 'n2',
    };
    const after = [arrival('tracker-a', 'accepted', '2026-01-01T00:00:05.000Z', 2)];
    // A node that folded everything, and one that starts where the arrivals before the rollup are gone.
    const all = fold(...before, rollup, ...after);
    const compacted = foldAt([3, started('b')], [5, rollup], [6, after[0]]);
    for (const state of [all, compacted]) {
      t.same(arrivalsOf(state, 'tracker-a'), {
        accepted: 3,
        duplicates: 0,
        refused: 4,
        not_configured: 0,
        last_accepted_at: '2026-01-01T00:00:05.000Z',
        last_refused_at: '2026-01-01T00:00:03.000Z',
      });
      t.equal(arrivalsOf(state, 'chat/ada').duplicates, 1);
      t.equal(state.sinceRollup.length, 1, 'one arrival record since the rollup');
      t.same([...state.started.keys()], ['b'], "pass records are not a rollup's");
    }
  },
);
