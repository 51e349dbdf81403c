/**
 * Compaction of the webhook arrival records (ops/webhooks.md "Compaction"): once the fold has taken more
 * than `threshold` arrival records since the newest rollup, a node appends a rollup (every surface's
 * counts as folded through the stream's last sequence, appended only if that is still the last one) and
 * removes the arrival records below it. Pass records stay. Any node may compact: the conditional append
 * lets one of two racing nodes win, and the loser, caught up, finds nothing left to sum.
 */
import type { Logger } from 'pino';
import { Streams, Subjects, WrongLastSequenceError, type Bus } from '../../bus/index.js';
import type { ArrivalsRollup, SurfaceCounts } from '../../schema/index.js';

/** Arrival records since the newest rollup that make a compaction due. */
export const ROLLUP_THRESHOLD = 1_000;
/** How often a node looks whether a compaction is due. */
export const ROLLUP_EVERY_MS = 60_000;
/** Conditional appends lost to other writers before a compaction gives up until its next turn. */
const MAX_ATTEMPTS = 20;
const CATCH_UP_MS = 10_000;
const encoder = new TextEncoder();

/** The integrations fold as the compaction reads it (the read model's running projection). */
export interface ArrivalsFold {
  state(): { readonly arrivals: ReadonlyMap<string, SurfaceCounts>; readonly sinceRollup: number };
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
    }
  | { readonly outcome: 'not_due'; readonly since_rollup: number }
  /** The fold did not reach the stream's end, or every conditional append lost to another writer. */
  | { readonly outcome: 'deferred'; readonly reason: string };

export interface ArrivalRollups {
  /** One compaction, if due; never two at once on this node. */
  compact(): Promise<RollupOutcome>;
  stop(): Promise<void>;
}

export function startArrivalRollups(opts: ArrivalRollupsOptions): ArrivalRollups {
  const { bus, fold } = opts;
  const threshold = opts.threshold ?? ROLLUP_THRESHOLD;
  const now = opts.now ?? (() => new Date());

  const attempt = async (): Promise<RollupOutcome | null> => {
    const info = await bus.streamInfo(Streams.Integrations);
    if (!(await fold.until(info.lastSeq, CATCH_UP_MS)))
      return { outcome: 'deferred', reason: `the fold did not reach sequence ${info.lastSeq}` };
    // State and sequence read together, with no fold between: the rollup sums exactly through `through`.
    const state = fold.state();
    const through = fold.seq();
    if (state.sinceRollup < threshold) return { outcome: 'not_due', since_rollup: state.sinceRollup };
    const record: ArrivalsRollup = {
      type: 'arrivals_rollup',
      through,
      surfaces: Object.fromEntries([...state.arrivals].map(([surface, c]) => [surface, { ...c }])),
      at: now().toISOString(),
      node: opts.nodeId,
    };
    let seq: number;
    try {
      const ack = await bus.publish(
        Subjects.integration('arrivals', 'rollup'),
        encoder.encode(JSON.stringify(record)),
        { expectedLastSeq: through },
      );
      seq = ack.seq;
    } catch (error) {
      if (error instanceof WrongLastSequenceError) return null;
      throw error;
    }
    // Cut short here, the next compaction removes these too: it purges below its own, later rollup.
    const removed = await bus.purgeBelow(Streams.Integrations, seq, Subjects.integrationArrivals);
    opts.logger?.info(
      { event: 'arrivals_compacted', seq, through, removed, surfaces: state.arrivals.size },
      'arrivals_compacted',
    );
    return { outcome: 'compacted', seq, through, removed };
  };

  const once = async (): Promise<RollupOutcome> => {
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      const outcome = await attempt();
      if (outcome) return outcome;
    }
    return { outcome: 'deferred', reason: `${MAX_ATTEMPTS} appends lost to other writers` };
  };

  let running: Promise<RollupOutcome> | null = null;
  const compact = (): Promise<RollupOutcome> => {
    running ??= once().finally(() => {
      running = null;
    });
    return running;
  };

  const everyMs = opts.everyMs ?? ROLLUP_EVERY_MS;
  const timer =
    everyMs > 0
      ? setInterval(() => {
          compact().catch((error: unknown) =>
            opts.logger?.warn(
              { err: error, event: 'arrivals_compaction_failed' },
              'arrivals_compaction_failed',
            ),
          );
        }, everyMs).unref()
      : null;

  return {
    compact,
    async stop() {
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
