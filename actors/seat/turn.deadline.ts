/**
 * The deadline of a scheduled turn (spec "Schedule" `timeout_seconds`): read from the wake's
 * `ScheduleWake` payload, and a timer that tells the seat when the turn has run out of time. The
 * stamps come from the turn's clock; the wait is a real timer.
 */
import {
  isScheduledTimeoutBreached,
  ScheduleWake,
  scheduledTimeoutBreach,
  type ScheduledTimeoutBreach,
} from '../../schema/index.js';
import type { DeadlineBreach, SeatEvent } from './seat.machine.js';

/** setTimeout fires at once past this delay (a signed 32-bit count of ms), so longer waits are chained. */
const maxDelayMs = 2_147_483_647;

export interface ScheduledDeadline {
  readonly wake: ScheduleWake & { readonly deadline: string };
  readonly at: Date;
}

/** The deadline of a wake whose payload is a `ScheduleWake` with one; null otherwise. */
export function deadlineOf(payload: unknown): ScheduledDeadline | null {
  const parsed = ScheduleWake.safeParse(payload);
  if (!parsed.success || parsed.data.deadline === null || parsed.data.timeout_seconds === null) return null;
  const wake = { ...parsed.data, deadline: parsed.data.deadline };
  return { wake, at: new Date(wake.deadline) };
}

/** True when the deadline had already passed at `now` (a wake that waited too long in the inbox). */
export const isExpired = (d: ScheduledDeadline, now: Date): boolean =>
  isScheduledTimeoutBreached(d.wake, now);

/** The breach to publish and the error the turn fails with. */
export function deadlineBreach(
  d: ScheduledDeadline,
  opts: {
    readonly targetHandle: string;
    readonly turnId: string;
    readonly at: Date;
    readonly queued: boolean;
    /** Taken again after a stop or a crash cut it: it had started, so it did not fail before starting. */
    readonly resumed?: boolean;
  },
): DeadlineBreach {
  const breach = scheduledTimeoutBreach(d.wake, opts) as ScheduledTimeoutBreach;
  const where = !opts.queued
    ? 'while the turn ran'
    : opts.resumed
      ? 'while the turn was cut, before it could resume'
      : 'before the turn could start';
  return {
    breach,
    error: `scheduled_timeout: schedule ${d.wake.schedule_name} allows ${breach.timeout_seconds} s; its deadline ${d.wake.deadline} passed ${where}`,
  };
}

/**
 * Calls `onBreach` once the deadline is reached (measured from `now()` when armed). Returns the disarm
 * function; call it when the turn ends, whichever way.
 */
export function armDeadline(d: ScheduledDeadline, now: () => Date, onBreach: () => void): () => void {
  let timer: NodeJS.Timeout | null = null;
  const wait = (ms: number): void => {
    const step = Math.min(ms, maxDelayMs);
    timer = setTimeout(() => {
      if (ms > step) wait(ms - step);
      else {
        timer = null;
        onBreach();
      }
    }, step);
  };
  wait(Math.max(0, d.at.getTime() - now().getTime()));
  return () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
}

/** A wake's deadline as the seat host uses it. */
export interface TurnDeadline {
  /** Set when the wake was taken after its deadline: the turn fails at once, without a model call. */
  readonly expired?: DeadlineBreach;
  /** Once the turn runs: sends `seat.deadline` when the deadline is reached; returns the disarm. */
  arm(send: (event: SeatEvent) => void): () => void;
}

/** Reads the deadline of a wake's payload (none: `arm` does nothing). `now` stamps the breach. */
export function turnDeadline(
  payload: unknown,
  opts: {
    readonly handle: string;
    readonly turnId: string;
    readonly now: () => Date;
    /** The turn resumes from its journal (a stop or a crash cut it). */
    readonly resumed?: boolean;
  },
): TurnDeadline {
  const d = deadlineOf(payload);
  if (!d) return { arm: () => () => undefined };
  const breach = (at: Date, queued: boolean): DeadlineBreach =>
    deadlineBreach(d, {
      targetHandle: opts.handle,
      turnId: opts.turnId,
      at,
      queued,
      ...(opts.resumed ? { resumed: true } : {}),
    });
  const now = opts.now();
  if (isExpired(d, now)) return { expired: breach(now, true), arm: () => () => undefined };
  return {
    arm: (send) =>
      armDeadline(d, opts.now, () => {
        // A timer may fire a millisecond before the clock reads the deadline; never stamp a breach early.
        const at = new Date(Math.max(opts.now().getTime(), d.at.getTime()));
        send({
          type: 'seat.deadline',
          turn_id: opts.turnId,
          at: at.toISOString(),
          expired: breach(at, false),
        });
      }),
  };
}
