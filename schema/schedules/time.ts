/**
 * Schedule arithmetic (spec "Schedule"): fire times of a cron expression in an IANA timezone, the
 * period around a firing, and the catchup window. Pure: every function takes the instant it reasons
 * about, so the scheduler actor and the `/schedules` read answer agree and tests never wait.
 *
 * DST follows cron-parser (tested in test/schema/schedule-time.unit.test.ts): a wall time the spring
 * gap skips fires once, shifted forward by the gap; a wall time the autumn overlap repeats fires
 * once (its first occurrence); interval fields (`0 * * * *`) keep firing every real hour.
 */
import { CronExpressionParser, type CronExpression } from 'cron-parser';

/** The catchup window is half the period, clamped to 2 min .. 2 h (issue #8). */
export const CATCHUP_MIN_MS = 2 * 60_000;
export const CATCHUP_MAX_MS = 2 * 3_600_000;

/** Why an expression or timezone cannot be scheduled; the message is safe to show. */
export class ScheduleTimeError extends Error {
  override readonly name = 'ScheduleTimeError';
}

/** True for an IANA timezone name this runtime knows. */
export function isKnownTimezone(tz: string): boolean {
  if (tz.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function expression(cron: string, tz: string, from: Date): CronExpression {
  if (!isKnownTimezone(tz)) throw new ScheduleTimeError(`unknown timezone "${tz}"`);
  try {
    return CronExpressionParser.parse(cron.trim(), { tz, currentDate: from });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ScheduleTimeError(`cron "${cron}" cannot be scheduled: ${why}`, { cause: error });
  }
}

/** Null when the expression and timezone can be scheduled, else the reason. */
export function cronProblem(cron: string, tz: string): string | null {
  try {
    // Parsing alone accepts dates that never occur (`0 0 31 2 *`): ask for one firing as well.
    expression(cron, tz, new Date(0)).next();
    return null;
  } catch (error) {
    if (error instanceof ScheduleTimeError) return error.message;
    return `cron "${cron}" never fires`;
  }
}

/** The first `count` fire times strictly after `after` (fewer when the expression runs out). */
export function nextFireTimes(cron: string, tz: string, after: Date, count: number): Date[] {
  const it = expression(cron, tz, after);
  const out: Date[] = [];
  while (out.length < count && it.hasNext()) out.push(it.next().toDate());
  return out;
}

/** The first fire time strictly after `after`, or null when there is none. */
export function nextFireTime(cron: string, tz: string, after: Date): Date | null {
  return nextFireTimes(cron, tz, after, 1)[0] ?? null;
}

/** The latest fire time at or before `at`, or null when there is none. */
export function latestFireTime(cron: string, tz: string, at: Date): Date | null {
  // prev() is strictly before its start, so start one millisecond after `at` to include it.
  const it = expression(cron, tz, new Date(at.getTime() + 1));
  return it.hasPrev() ? it.prev().toDate() : null;
}

/**
 * The period a firing owns: from `fireTime` to the next fire time after it. Null when nothing
 * follows (a date that never comes again), which the catchup window reads as the longest period.
 */
export function periodAfter(cron: string, tz: string, fireTime: Date): number | null {
  const next = nextFireTime(cron, tz, fireTime);
  return next === null ? null : next.getTime() - fireTime.getTime();
}

/** Half the period, clamped to 2 min .. 2 h. */
export function catchupWindowMs(periodMs: number | null): number {
  if (periodMs === null) return CATCHUP_MAX_MS;
  return Math.min(CATCHUP_MAX_MS, Math.max(CATCHUP_MIN_MS, Math.floor(periodMs / 2)));
}

export interface MissedFiring {
  /** The most recent fire time after `since` and at or before `now`. */
  readonly scheduledAt: Date;
  /** Whether `now` is still inside that firing's catchup window. */
  readonly withinWindow: boolean;
  readonly windowMs: number;
}

/**
 * The most recent firing nobody ran: the latest fire time in (`since`, `now`]. `since` is the last
 * instant a scheduler is known to have been running; null (never ran) means nothing was missed.
 */
export function missedFiring(cron: string, tz: string, since: Date | null, now: Date): MissedFiring | null {
  if (since === null) return null;
  const latest = latestFireTime(cron, tz, now);
  if (latest === null || latest.getTime() <= since.getTime()) return null;
  const windowMs = catchupWindowMs(periodAfter(cron, tz, latest));
  return { scheduledAt: latest, withinWindow: now.getTime() - latest.getTime() <= windowMs, windowMs };
}
