/**
 * The episode lifecycle's pass (spec `learning.episode_lifecycle`): caps, age limits, consolidation's grace,
 * compaction of similar old episodes, zero turning a rule off, and the ledger kept within one KV value.
 */
import t from 'tap';
import {
  clusterOf,
  DEFAULT_LIFECYCLE,
  emptyLedger,
  LEDGER_BYTES_MAX,
  lifecycleLimits,
  noteConsolidated,
  noteRecorded,
  planLifecycle,
  REFRESH_AFTER_MS,
  type Ledger,
  type LifecycleLimits,
} from '../../../actors/seat/episode.lifecycle.js';
import type { Episode } from '../../../actors/seat/turn.episode.js';

const DAY = 24 * 3600 * 1000;
const HISTORY = 30 * DAY;
const NOW = Date.parse('2026-06-30T12:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

let n = 0;
function episode(ageDays: number, over: Partial<Episode> = {}): Episode {
  n += 1;
  const ended = NOW - ageDays * DAY;
  return {
    id: `e${n}`,
    task_summary: `Task ${n}`,
    plan_summary: `Plan ${n}`,
    tool_sequence: ['tracker_comment'],
    skills_used: [],
    review_outcome: 'passed_first',
    started_at: iso(ended - 60_000),
    ended_at: iso(ended),
    duration_ms: 60_000,
    task_id: null,
    turn_id: `turn-${n}`,
    ask: `Ask ${n}`,
    account: `Account ${n}`,
    ...over,
  };
}

const held = (...episodes: Episode[]): Ledger => episodes.reduce(noteRecorded, emptyLedger());
const limits = (over: Partial<LifecycleLimits> = {}): LifecycleLimits => ({ ...DEFAULT_LIFECYCLE, ...over });
const ids = (ledger: Ledger): string[] => ledger.raw.map((e) => e.id);

t.test('past max_raw_episodes_per_agent the oldest raw episodes go, as a cap prune', async (t) => {
  const [a, b, c] = [episode(3), episode(2), episode(1)];
  const plan = planLifecycle(held(c, a, b), limits({ max_raw_episodes_per_agent: 2 }), NOW, HISTORY);
  t.same(ids(plan.ledger), [b.id, c.id], 'the two newest stay, oldest first');
  t.same(plan.pruned, [{ ids: [a.id], reason: 'cap' }]);
  t.same(plan.compacted, []);
});

t.test('a cap of zero keeps every raw episode up to the ledger bound', async (t) => {
  const many = Array.from({ length: 250 }, (_, i) => episode(1 + i / 1000));
  const plan = planLifecycle(held(...many), limits({ max_raw_episodes_per_agent: 0 }), NOW, HISTORY);
  t.equal(plan.ledger.raw.length, 200, 'the ledger still holds at most 200');
  t.equal(plan.pruned[0]?.ids.length, 50);
});

t.test(
  'an episode without an outcome goes after non_terminal_max_age_days; terminal ones stay',
  async (t) => {
    const open = episode(5, { review_outcome: null });
    const fresh = episode(1, { review_outcome: null });
    const done = episode(5, { tool_sequence: ['a'] });
    const none = { compaction_min_cluster_size: 0 };
    const plan = planLifecycle(held(open, fresh, done), limits({ ...none, non_terminal_max_age_days: 3 }), NOW, HISTORY); // prettier-ignore
    t.same(ids(plan.ledger), [done.id, fresh.id]);
    t.same(plan.pruned, [{ ids: [open.id], reason: 'non_terminal_age' }]);
    const off = planLifecycle(held(open, fresh, done), limits({ ...none, non_terminal_max_age_days: 0 }), NOW, HISTORY); // prettier-ignore
    t.same(off.pruned, [], 'zero: no age limit');
  },
);

t.test('similar terminal episodes past compaction_min_age_days compact into one episode', async (t) => {
  const old = [episode(10), episode(9, { review_outcome: 'passed_after_revision' }), episode(8)];
  const young = episode(2);
  const failed = episode(10, { review_outcome: 'failed' });
  const plan = planLifecycle(held(...old, young, failed), limits(), NOW, HISTORY);
  t.equal(plan.compacted.length, 1);
  const [c] = plan.compacted;
  t.same(
    c!.members,
    old.map((e) => e.id),
    'the three old passed ones, oldest first',
  );
  t.equal(c!.cluster, 'passed:tracker_comment');
  t.match(c!.episode, {
    task_summary: /^3 similar tasks: Task \d+; Task \d+; Task \d+$/,
    plan_summary: old[2]!.plan_summary,
    tool_sequence: ['tracker_comment'],
    review_outcome: 'passed_first',
    started_at: old[0]!.started_at,
    ended_at: old[2]!.ended_at,
    duration_ms: 180_000,
    task_id: null,
    turn_id: null,
    account: /Compacted from 3 episodes \(passed:tracker_comment\): 2 passed first, 1 passed after revision/,
  });
  t.same(
    ids(plan.ledger).sort(),
    [young.id, failed.id].sort(),
    'the young one and the lone failure stay raw',
  );
  t.same(
    plan.ledger.compacted.map((x) => x.episode.id),
    [c!.episode.id],
  );
  t.same(plan.pruned, [], 'members leave through the compaction, not a prune');

  const again = planLifecycle(held(...old, young, failed), limits(), NOW + 1000, HISTORY);
  t.equal(again.compacted[0]!.episode.id, c!.episode.id, 'the same members make the same id');
});

t.test(
  'a cluster below compaction_min_cluster_size stays raw; zero turns compaction off, one counts as two',
  async (t) => {
    const pair = [episode(10), episode(9)];
    t.same(planLifecycle(held(...pair), limits(), NOW, HISTORY).compacted, [], 'two of three');
    t.equal(planLifecycle(held(...pair), limits({ compaction_min_cluster_size: 1 }), NOW, HISTORY).compacted.length, 1); // prettier-ignore
    t.same(planLifecycle(held(episode(10)), limits({ compaction_min_cluster_size: 1 }), NOW, HISTORY).compacted, []); // prettier-ignore
    const trio = [episode(10), episode(9), episode(8)];
    t.same(
      planLifecycle(held(...trio), limits({ compaction_min_cluster_size: 0 }), NOW, HISTORY).compacted,
      [],
    );
  },
);

t.test('episodes without an outcome are never compacted', async (t) => {
  const open = [episode(10, { review_outcome: null }), episode(9, { review_outcome: null }), episode(8, { review_outcome: null })]; // prettier-ignore
  const plan = planLifecycle(held(...open), limits({ non_terminal_max_age_days: 0 }), NOW, HISTORY);
  t.same(plan.compacted, []);
  t.equal(plan.ledger.raw.length, 3);
});

t.test('a consolidated episode waits consolidated_grace_days after its consolidation', async (t) => {
  const trio = [episode(10), episode(9), episode(8)];
  let ledger = held(...trio);
  ledger = noteConsolidated(ledger, trio[2]!.id, iso(NOW - 2 * DAY));
  t.same(
    planLifecycle(ledger, limits({ consolidated_grace_days: 5 }), NOW, HISTORY).compacted,
    [],
    'still in grace',
  );
  t.equal(planLifecycle(ledger, limits({ consolidated_grace_days: 1 }), NOW, HISTORY).compacted.length, 1);
});

t.test(
  'consolidation keeps the summaries reflection rewrote, and ignores an episode no longer held',
  async (t) => {
    const e = episode(1);
    const ledger = noteConsolidated(held(e), e.id, iso(NOW), {
      ...e,
      task_summary: 'Short',
      plan_summary: 'Brief',
    });
    t.match(ledger.raw[0], { task_summary: 'Short', plan_summary: 'Brief', consolidated_at: iso(NOW) });
    t.equal(noteConsolidated(ledger, 'gone', iso(NOW)), ledger);
    t.match(noteRecorded(ledger, { ...e, task_summary: 'Again' }).raw[0], { task_summary: 'Again', consolidated_at: iso(NOW) }, 'a re-record keeps the consolidation'); // prettier-ignore
  },
);

t.test('a compacted episode goes once its newest member is compacted_max_age_days old', async (t) => {
  const trio = [episode(10), episode(9), episode(8)];
  const first = planLifecycle(held(...trio), limits(), NOW, HISTORY);
  const id = first.compacted[0]!.episode.id;
  const later = planLifecycle(first.ledger, limits({ compacted_max_age_days: 20 }), NOW + 13 * DAY, HISTORY);
  t.same(later.pruned, [{ ids: [id], reason: 'compacted_age' }]);
  t.same(later.ledger.compacted, []);
  const kept = planLifecycle(first.ledger, limits({ compacted_max_age_days: 0 }), NOW + 400 * DAY, HISTORY);
  t.equal(kept.ledger.compacted.length, 1, 'zero: kept');
});

t.test('a compacted episode is recorded again before the event history lets its record go', async (t) => {
  const first = planLifecycle(held(episode(10), episode(9), episode(8)), limits(), NOW, HISTORY);
  t.same(planLifecycle(first.ledger, limits(), NOW + DAY, HISTORY).compacted, [], 'recorded a day ago');
  const due = planLifecycle(first.ledger, limits(), NOW + REFRESH_AFTER_MS, HISTORY);
  t.equal(due.compacted.length, 1);
  t.equal(due.compacted[0]!.recorded_at, iso(NOW + REFRESH_AFTER_MS));
  t.same(planLifecycle(due.ledger, limits(), NOW + REFRESH_AFTER_MS + DAY, HISTORY).compacted, []);
});

t.test('a raw episode older than the event history goes, after compaction had its turn', async (t) => {
  const lone = episode(31);
  const trio = [episode(33), episode(32), episode(31)].map((e) => ({ ...e, tool_sequence: ['x'] }));
  const plan = planLifecycle(held(lone, ...trio), limits(), NOW, HISTORY);
  t.equal(plan.compacted.length, 1, 'the old trio compacted');
  t.same(plan.pruned, [{ ids: [lone.id], reason: 'expired' }]);
});

t.test('the ledger stays within one KV value, oldest going first', async (t) => {
  const big = Array.from(
    { length: 200 },
    (_, i) =>
    episode(1 + i / 1000, { plan_summary: 'p'.repeat(500), tool_sequence: Array.from({ length: 300 }, (_, k) => `tool_${k}`) }), // prettier-ignore
  );
  const plan = planLifecycle(held(...big), limits({ compaction_min_cluster_size: 0 }), NOW, HISTORY);
  t.ok(Buffer.byteLength(JSON.stringify(plan.ledger)) <= LEDGER_BYTES_MAX);
  t.ok(plan.ledger.raw.length < 200 && plan.ledger.raw.length > 0);
  t.equal(plan.pruned[0]?.reason, 'cap');
  t.equal(plan.pruned[0]?.ids[0], big.at(-1)!.id, 'the oldest (largest age) first');
});

t.test('clusters are the outcome and the distinct tools, whatever their order', async (t) => {
  t.equal(clusterOf({ review_outcome: 'passed_first', tool_sequence: ['b', 'a', 'b'] }), 'passed:a,b');
  t.equal(clusterOf({ review_outcome: 'passed_after_revision', tool_sequence: ['a', 'b'] }), 'passed:a,b');
  t.equal(clusterOf({ review_outcome: 'failed', tool_sequence: [] }), 'failed:(no tools)');
});

t.test('limits absent from the document take their defaults, each on its own', async (t) => {
  t.same(lifecycleLimits(undefined), DEFAULT_LIFECYCLE);
  t.same(lifecycleLimits({ max_raw_episodes_per_agent: 0 }), {
    ...DEFAULT_LIFECYCLE,
    max_raw_episodes_per_agent: 0,
  });
});

t.test('an episode compacted already is not held raw again by a late record', async (t) => {
  const trio = [episode(10), episode(9), episode(8)];
  const { ledger } = planLifecycle(held(...trio), limits(), NOW, HISTORY);
  t.equal(noteRecorded(ledger, trio[0]!), ledger);
});
