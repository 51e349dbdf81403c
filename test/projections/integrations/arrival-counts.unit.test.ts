/**
 * A rollup sums the arrivals through a sequence it names, and may land after newer ones: the fold takes its
 * counts and adds back what it folded above that sequence, ignores a rollup through no later sequence than
 * the one it stands on, and reads the same whether the summed arrival records are still there or gone.
 */
import t from 'tap';
import {
  applyIntegrationRecord,
  emptyIntegrationsState,
  integrationsProjection,
  type IntegrationsState,
} from '../../../projections/index.js';

type Stored = [seq: number, record: Record<string, unknown>];

let clock = 0;
const arrival = (surface: string, outcome: string, count = 1) => ({
  type: 'arrival',
  surface,
  outcome,
  count,
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, ++clock)).toISOString(),
  node: 'n1',
});

/** Arrival records at sequences 1..n, over two surfaces and every outcome. */
function arrivals(n: number): Stored[] {
  const outcomes = ['accepted', 'refused', 'duplicate', 'not_configured'];
  return Array.from({ length: n }, (_, i) => [
    i + 1,
    arrival(i % 3 ? 'tracker-a' : 'chat/ada', outcomes[i % 4]!, 1 + (i % 2)),
  ]);
}

const fold = (records: Stored[], state = emptyIntegrationsState()): IntegrationsState =>
  records.reduce((s, [seq, r]) => applyIntegrationRecord(s, r, seq), state);

/** What every node must read: every arrival record of `records` added once. */
const truth = (records: Stored[]) =>
  Object.fromEntries(fold(records.filter(([, r]) => r.type === 'arrival')).arrivals);

/** A rollup of `records` through `through`, as a node that folded them all appends it. */
const rollupOf = (records: Stored[], through: number, withThrough = true) => ({
  type: 'arrivals_rollup',
  ...(withThrough ? { through } : {}),
  surfaces: Object.fromEntries(fold(records.filter(([seq]) => seq <= through)).arrivals),
  at: '2026-02-01T00:00:00.000Z',
  node: 'n2',
});

/** `records` with the arrival records up to `through` removed, as a compaction leaves them. */
const purged = (records: Stored[], through: number): Stored[] =>
  records.filter(([seq, r]) => r.type !== 'arrival' || seq > through);

t.test(
  'a rollup that lands after newer arrivals adds them back, with or without the summed records',
  async (t) => {
    const stream = arrivals(10);
    // Summed through 6; arrivals 7 to 10 landed before it; one more after it.
    stream.push([11, rollupOf(stream, 6)], [12, arrival('tracker-a', 'accepted')]);
    const live = fold(stream);
    t.same(Object.fromEntries(live.arrivals), truth(stream), 'the node that folded every record');
    t.same(
      live.sinceRollup.map((a) => a.seq),
      [7, 8, 9, 10, 12],
      'it keeps only the arrival records above the rollup',
    );
    t.equal(live.rollupThrough, 6);
    const replayed = fold(purged(stream, 6));
    t.same(Object.fromEntries(replayed.arrivals), truth(stream), 'a node replaying the compacted stream');
    t.same(replayed.sinceRollup, live.sinceRollup);
  },
);

t.test(
  'of two racing rollups the later sum wins and the other changes nothing, in either order',
  async (t) => {
    const stream = arrivals(10);
    for (const [first, second] of [
      [4, 8],
      [8, 4],
      [6, 6],
    ] as const) {
      const raced: Stored[] = [...stream, [11, rollupOf(stream, first)], [12, rollupOf(stream, second)]];
      raced.push([13, arrival('chat/ada', 'refused', 3)]);
      const live = fold(raced);
      t.same(Object.fromEntries(live.arrivals), truth(raced), `through ${first} then ${second}`);
      t.equal(live.rollupThrough, Math.max(first, second));
      // Each compacting node removed the arrival records up to its own rollup's `through`.
      const replayed = fold(purged(raced, Math.max(first, second)));
      t.same(
        Object.fromEntries(replayed.arrivals),
        truth(raced),
        `through ${first} then ${second}, replayed`,
      );
    }
  },
);

t.test(
  'a rollup without `through`, from a store of the conditional release, sums what precedes it',
  async (t) => {
    const stream = arrivals(5);
    stream.push([6, rollupOf(stream, 5, false)], [7, arrival('tracker-a', 'accepted')]);
    t.same(Object.fromEntries(fold(stream).arrivals), truth(stream), 'folded with the records it sums');
    const replayed = fold(purged(stream, 5));
    t.same(Object.fromEntries(replayed.arrivals), truth(stream), 'folded where they are gone');
    t.equal(replayed.rollupThrough, 5);
    // A rollup of the current release after it, through a sequence below its own, still adds up.
    stream.push(
      [8, arrival('chat/ada', 'accepted')],
      [9, rollupOf(stream, 7)],
      [10, arrival('wiki', 'refused')],
    );
    t.same(Object.fromEntries(fold(purged(stream, 7)).arrivals), truth(stream));
  },
);

t.test('a rollup naming its own sequence or a later one is not a sum any node made: skipped', async (t) => {
  const stream = arrivals(3);
  const bogus = { ...rollupOf(stream, 3), surfaces: {} };
  const state = fold([...stream, [4, { ...bogus, through: 4 }], [5, { ...bogus, through: 9 }]]);
  t.same(Object.fromEntries(state.arrivals), truth(stream));
  t.equal(state.rollupThrough, 0);
});

t.test('records passed over are noted until a rollup through them is folded', async (t) => {
  const stream = arrivals(8);
  stream.push([9, rollupOf(stream, 6)]);
  // A node whose checkpoint is at 2 comes back after arrivals 3 to 6 were removed.
  const state = fold(stream.slice(0, 2));
  fold([stream[6]!], state);
  t.equal(state.skippedThrough, 6, 'sequences 3 to 6 were passed over');
  t.ok(state.skippedThrough > state.rollupThrough, 'its counts may miss them');
  fold(stream.slice(7), state);
  t.equal(state.rollupThrough, 6, 'until the rollup that removed them');
  t.same(Object.fromEntries(state.arrivals), truth(stream));
});

t.test('from a checkpoint between a rollup and the next, the fold goes on as if never stopped', async (t) => {
  const stream = arrivals(10);
  stream.push([11, rollupOf(stream, 7)], [12, arrival('tracker-a', 'duplicate')]);
  const codec = integrationsProjection.checkpoint!;
  const saved = JSON.parse(JSON.stringify(codec.save(fold(stream)))) as unknown;
  const loaded = codec.load(saved)!;
  t.ok(loaded);
  const more: Stored[] = [[13, arrival('chat/ada', 'accepted')]];
  more.push([14, rollupOf([...stream, ...more], 12)], [15, arrival('wiki', 'accepted')]);
  const all = [...stream, ...more];
  t.same(Object.fromEntries(fold(more, loaded).arrivals), truth(all), 'resumed from the checkpoint');
  t.same(Object.fromEntries(fold(all).arrivals), truth(all), 'replayed from the start');
  t.same(
    loaded.sinceRollup.map((a) => a.seq),
    [13, 15],
  );
});
