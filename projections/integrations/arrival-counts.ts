/**
 * The arrival counts of the integrations fold, and how a rollup takes their place (ops/webhooks.md
 * "Compaction"). A rollup names `through`, the last sequence its counts sum; it may land after newer arrival
 * records (nothing conditions its append), so the fold keeps the arrival records it applied since the
 * newest rollup's `through` and, on a newer rollup, takes its counts and adds back those above its `through`.
 * A rollup through no more than the one the counts stand on is stale (two nodes compacting at once) and
 * changes nothing. The fold also notes the records it never saw (gone before it read them), so a compaction
 * sums only counts that miss nothing.
 */
import { z } from 'zod';
import { ArrivalOutcome, type Arrival, type ArrivalsRollup, type SurfaceCounts } from '../../schema/index.js';

/** An arrival record as folded: what a rollup that does not sum it must add back. */
export interface AppliedArrival {
  readonly seq: number;
  readonly surface: string;
  readonly outcome: ArrivalOutcome;
  readonly count: number;
  readonly at: string;
}

/** The arrival part of the integrations state (owned by one runner, updated in place). */
export interface ArrivalCounts {
  readonly arrivals: Map<string, SurfaceCounts>;
  /** The sequence the newest applied rollup summed through (0 before any): what the counts stand on. */
  rollupThrough: number;
  /** The arrival records applied above `rollupThrough`, oldest first: what a compaction sums and removes. */
  sinceRollup: AppliedArrival[];
  /** The last sequence folded. */
  seq: number;
  /**
   * The highest sequence the fold passed without reading (removed before it got there), or 0. Above
   * `rollupThrough`, the counts may miss an arrival record until the fold reads the rollup that removed it.
   */
  skippedThrough: number;
}

export function emptyArrivalCounts(): ArrivalCounts {
  return { arrivals: new Map(), rollupThrough: 0, sinceRollup: [], seq: 0, skippedThrough: 0 };
}

export const noArrivals = (): SurfaceCounts => ({
  accepted: 0,
  duplicates: 0,
  refused: 0,
  not_configured: 0,
  last_accepted_at: null,
  last_refused_at: null,
});

/** Notes the sequence of the record about to be folded, and any sequences passed over before it. */
export function foldedSeq(state: ArrivalCounts, seq: number): void {
  if (seq > state.seq + 1) state.skippedThrough = seq - 1;
  state.seq = Math.max(state.seq, seq);
}

const later = (a: string | null, b: string): string => (a === null || b > a ? b : a);

function add(arrivals: Map<string, SurfaceCounts>, a: AppliedArrival): void {
  const c = arrivals.get(a.surface) ?? noArrivals();
  if (a.outcome === 'accepted') {
    c.accepted += a.count;
    c.last_accepted_at = later(c.last_accepted_at, a.at);
  } else if (a.outcome === 'duplicate') c.duplicates += a.count;
  else if (a.outcome === 'refused') {
    c.refused += a.count;
    c.last_refused_at = later(c.last_refused_at, a.at);
  } else c.not_configured += a.count;
  arrivals.set(a.surface, c);
}

export function applyArrival(state: ArrivalCounts, record: Arrival, seq: number): void {
  const applied = {
    seq,
    surface: record.surface,
    outcome: record.outcome,
    count: record.count,
    at: record.at,
  };
  add(state.arrivals, applied);
  state.sinceRollup.push(applied);
}

/**
 * A rollup without `through` was appended by a release that conditioned it on being the next record after
 * what it summed: it sums through the sequence just below its own.
 */
export function applyRollup(state: ArrivalCounts, record: ArrivalsRollup, seq: number): void {
  const through = record.through ?? seq - 1;
  // A sum through its own sequence or beyond cannot be: a record of no honest node.
  if (through >= seq || through <= state.rollupThrough) return;
  state.arrivals.clear();
  for (const [surface, counts] of Object.entries(record.surfaces)) state.arrivals.set(surface, { ...counts });
  state.sinceRollup = state.sinceRollup.filter((a) => a.seq > through);
  for (const a of state.sinceRollup) add(state.arrivals, a);
  state.rollupThrough = through;
}

const SavedArrival = z.tuple([
  z.number().int().positive(),
  z.string(),
  ArrivalOutcome,
  z.number().int().positive(),
  z.string(),
]);
const SavedArrivalCounts = z.object({
  rollup_through: z.number().int().nonnegative(),
  since_rollup: z.array(SavedArrival),
  seq: z.number().int().nonnegative(),
  skipped_through: z.number().int().nonnegative(),
});
type SavedArrivalCounts = z.infer<typeof SavedArrivalCounts>;

/** The checkpoint form of everything but the counts themselves (saved beside them). */
export function saveArrivalCounts(state: ArrivalCounts): SavedArrivalCounts {
  return {
    rollup_through: state.rollupThrough,
    since_rollup: state.sinceRollup.map((a) => [a.seq, a.surface, a.outcome, a.count, a.at]),
    seq: state.seq,
    skipped_through: state.skippedThrough,
  };
}

/** Null when `saved` is not such a checkpoint (the projection then replays from zero). */
export function loadArrivalCounts(
  saved: unknown,
  arrivals: Map<string, SurfaceCounts>,
): ArrivalCounts | null {
  const parsed = SavedArrivalCounts.safeParse(saved);
  if (!parsed.success) return null;
  const s = parsed.data;
  return {
    arrivals,
    rollupThrough: s.rollup_through,
    sinceRollup: s.since_rollup.map(([seq, surface, outcome, count, at]) => ({
      seq,
      surface,
      outcome,
      count,
      at,
    })),
    seq: s.seq,
    skippedThrough: s.skipped_through,
  };
}
