/**
 * Compaction of the webhook arrival records (ops/webhooks.md "Compaction"): once the fold has taken at least
 * `threshold` arrival records since the newest rollup, a node appends a rollup (every surface's counts as
 * folded through `through`, the last sequence it folded) and removes the arrival records up to `through`.
 * It is due too when a kind holds `passThreshold` pass records past its newest kept runs (projections:
 * passTrims), and then also removes those, below `through` as well. Nothing conditions the append, so newer records may land before it and a busy stream
 * does not hold it back: the fold adds back the arrivals above `through`. Any node may compact; of two racing
 * rollups the fold takes the one through the later sequence (both sum correctly) and ignores the other.
 */
import type { Logger } from 'pino';
import { Streams, Subjects, type Bus } from '../../bus/index.js';
import type { ArrivalsRollup, SurfaceCounts } from '../../schema/index.js';
import { startPeriodic } from '../periodic.js';

/** Arrival records since the newest rollup that make a compaction due. */
export const ROLLUP_THRESHOLD = 1_000;
/**
 * Pass records of one kind past its kept runs that make a compaction due too: a kind's records on the
 * stream stay within its kept runs' (100 starts and finishes) and this many more.
 */
export const PASS_TRIM_THRESHOLD = 50;
/** How often a node looks whether a compaction is due. */
export const ROLLUP_EVERY_MS = 60_000;
/** Reads of the fold that passed over removed records before a compaction gives up until its next turn. */
const MAX_ATTEMPTS = 3;
const CATCH_UP_MS = 10_000;
const encoder = new TextEncoder();

/** The integrations fold as the compaction reads it (the read model's running projection). */
export interface ArrivalsFold {
  state(): {
    readonly arrivals: ReadonlyMap<string, SurfaceCounts>;
    /** The arrival records folded since the newest rollup's `through`. */
    readonly sinceRollup: readonly unknown[];
    readonly rollupThrough: number;
    /** The highest sequence the fold passed over without reading it (removed), or 0. */
    readonly skippedThrough: number;
    /** Per kind, the pass records below `below` that may go (projections: passTrims); none when absent. */
    readonly passTrims?: ReadonlyMap<string, { readonly below: number; readonly count: number }>;
  };
  /** The last sequence folded into `state()`. */
  seq(): number;
  until(seq: number, timeoutMs: number): Promise<boolean>;
}

export interface ArrivalRollupsOptions {
  readonly bus: Bus;
  readonly fold: ArrivalsFold;
  readonly nodeId: string;
  readonly logger?: Logger;
  /** Default ROLLUP_THRESHOLD. */
  readonly threshold?: number;
  /** Default PASS_TRIM_THRESHOLD. */
  readonly passThreshold?: number;
  /** Default ROLLUP_EVERY_MS; 0 starts no timer (a test calls `compact`). */
  readonly everyMs?: number;
  readonly now?: () => Date;
}

type RollupOutcome =
  | {
      readonly outcome: 'compacted';
      readonly seq: number;
      readonly through: number;
      readonly removed: number;
      /** Pass records removed (past each kind's kept runs). */
      readonly passes_removed: number;
    }
  | { readonly outcome: 'not_due'; readonly since_rollup: number }
  /** The fold did not reach the stream's end, or kept passing over records no rollup it read sums. */
  | { readonly outcome: 'deferred'; readonly reason: string };

export interface ArrivalRollups {
  /** One compaction, if due; never two at once on this node. */
  compact(): Promise<RollupOutcome>;
  stop(): Promise<void>;
}

export function startArrivalRollups(opts: ArrivalRollupsOptions): ArrivalRollups {
  const { bus, fold } = opts;
  const threshold = opts.threshold ?? ROLLUP_THRESHOLD;
  const passThreshold = opts.passThreshold ?? PASS_TRIM_THRESHOLD;
  const now = opts.now ?? (() => new Date());

  /** The outcome, or why this read of the fold may not be summed (the next read may). */
  const attempt = async (): Promise<RollupOutcome | string> => {
    const info = await bus.streamInfo(Streams.Integrations);
    if (!(await fold.until(info.lastSeq, CATCH_UP_MS)))
      return { outcome: 'deferred', reason: `the fold did not reach sequence ${info.lastSeq}` };
    // State and sequence read together, with no fold between: the rollup sums exactly through `through`.
    const state = fold.state();
    const through = fold.seq();
    const since = state.sinceRollup.length;
    const trims = [...(state.passTrims ?? new Map<string, { below: number; count: number }>())];
    if (since < threshold && !trims.some(([, trim]) => trim.count >= passThreshold))
      return { outcome: 'not_due', since_rollup: since };
    // Records removed by another node's compaction that the fold has not read the rollup of yet: its counts
    // lack them, and a rollup of them would lose them for good. That rollup is in the stream by now.
    if (state.skippedThrough > state.rollupThrough)
      return `the fold passed over records through ${state.skippedThrough} that no rollup it read sums`;
    const record: ArrivalsRollup = {
      type: 'arrivals_rollup',
      through,
      surfaces: Object.fromEntries([...state.arrivals].map(([surface, c]) => [surface, { ...c }])),
      ...(trims.length > 0
        ? { passes_below: Object.fromEntries(trims.map(([kind, trim]) => [kind, trim.below])) }
        : {}),
      at: now().toISOString(),
      node: opts.nodeId,
    };
    const rollupSubject = Subjects.integration('arrivals', 'rollup');
    const { seq } = await bus.publish(rollupSubject, encoder.encode(JSON.stringify(record)));
    // Cut short here, the next compaction removes these too: it purges through its own, later `through`.
    const removed = await bus.purgeBelow(Streams.Integrations, through + 1, Subjects.integrationArrivals);
    // Every removal lies below `through`, so a fold passing over it reads this rollup after it (no gap that
    // no rollup covers). A kind's starts go with its finishes, so no pass reads back as open.
    let passesRemoved = 0;
    for (const [kind, trim] of trims)
      for (const type of ['pass_finished', 'pass_started'])
        passesRemoved += await bus.purgeBelow(
          Streams.Integrations,
          trim.below,
          Subjects.integration(kind, type),
        );
    opts.logger?.info(
      {
        event: 'arrivals_compacted',
        seq,
        through,
        removed,
        passes_removed: passesRemoved,
        surfaces: state.arrivals.size,
      },
      'arrivals_compacted',
    );
    return { outcome: 'compacted', seq, through, removed, passes_removed: passesRemoved };
  };

  const once = async (): Promise<RollupOutcome> => {
    let reason = '';
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      const outcome = await attempt();
      if (typeof outcome !== 'string') return outcome;
      reason = outcome;
    }
    return { outcome: 'deferred', reason };
  };

  const job = startPeriodic(once, {
    everyMs: opts.everyMs ?? ROLLUP_EVERY_MS,
    onError: (error) =>
      opts.logger?.warn({ err: error, event: 'arrivals_compaction_failed' }, 'arrivals_compaction_failed'),
  });
  return { compact: job.run, stop: job.stop };
}
