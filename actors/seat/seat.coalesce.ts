/**
 * Inbox batching (`notification_coalesce_window_seconds`, `notification_coalesce_max_batch`). With a
 * window set, a notification or mention wake waits until the window since it was received has passed,
 * then its turn takes the notification wakes waiting behind it on the seat's inbox that were received
 * within that window (oldest first, up to the batch size, from the same sender) — one turn for a burst
 * instead of one per delivery. Schedules
 * never wait or join a batch: they carry their own deadlines.
 *
 * The wakes a turn absorbs are named in its journal (`turn_started.absorbed`), so a resumed turn takes the
 * same ones, and are recorded done with it, so their own delivery later is acknowledged without running.
 * Pure; the inbox reads are seat.waiting.ts.
 */
import { InboxKind, type Company, type InboxMessage } from '../../schema/index.js';

export interface Coalescing {
  /** 0: every wake runs its own turn at once. */
  readonly windowMs: number;
  /** Most wakes one turn takes, the first included. */
  readonly maxBatch: number;
}

/** The batch size when a window is set without `notification_coalesce_max_batch`. */
export const defaultMaxBatch = 10;

export function coalescingOf(company: Company | null): Coalescing {
  const seconds = company?.notification_coalesce_window_seconds ?? 0;
  return {
    windowMs: Math.round(seconds * 1000),
    maxBatch: company?.notification_coalesce_max_batch ?? defaultMaxBatch,
  };
}

/** A wake that may wait for and absorb others: a notification or a mention. */
export const batchable = (wake: InboxMessage): boolean =>
  wake.kind === InboxKind.Notification || wake.kind === InboxKind.Mention;

/** A waiting wake a turn takes with its own, by its inbox sequence. */
export interface Absorbed {
  readonly id: string;
  readonly seq: number;
}

const summaryMax = 300;

/**
 * The one wake a batch runs as: the first wake's id, trace and sender (so its turn id and its answers to
 * that sender stand), a mention if any is one, a summary line per wake, and every wake in the payload.
 */
export function mergeWakes(first: InboxMessage, rest: readonly InboxMessage[]): InboxMessage {
  if (rest.length === 0) return first;
  const all = [first, ...rest];
  const lines = all.map(
    (w) => `- ${w.summary.length > summaryMax ? `${w.summary.slice(0, summaryMax)}…` : w.summary}`,
  );
  return {
    ...first,
    kind: all.some((w) => w.kind === InboxKind.Mention) ? InboxKind.Mention : first.kind,
    summary: `${all.length} notifications:\n${lines.join('\n')}`,
    payload: {
      batch: all.map((w) => ({
        id: w.id,
        kind: w.kind,
        source: w.source,
        received_at: w.received_at,
        summary: w.summary,
        payload: w.payload,
      })),
    },
  };
}

/**
 * Whether `wake` was received within the window opened by `first`: a notification received later starts a
 * wake (and a window) of its own, even when it already waits in the inbox because the seat was busy.
 */
export function inWindow(first: InboxMessage, wake: InboxMessage, windowMs: number): boolean {
  const opened = Date.parse(first.received_at);
  const at = Date.parse(wake.received_at);
  return !Number.isNaN(opened) && !Number.isNaN(at) && at - opened <= windowMs;
}

/** How long a wake received at `receivedAt` still waits for others, in ms (0 when its window passed). */
export function windowLeft(receivedAt: string, now: Date, windowMs: number): number {
  const at = Date.parse(receivedAt);
  const since = Number.isNaN(at) ? windowMs : now.getTime() - at;
  return Math.max(0, Math.min(windowMs, windowMs - since));
}
