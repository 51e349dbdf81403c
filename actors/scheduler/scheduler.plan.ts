/**
 * The scheduler's decisions, pure: which firings are due at an instant, what a duty holder owes for
 * the time nobody was scheduling (catchup), and when each schedule fires next.
 */
import {
  isRunnable,
  latestFireTime,
  missedFiring,
  nextFireTime,
  scheduleKey,
  ScheduleOutcome,
  timingDigest,
  timingOf,
  type EffectiveSchedule,
  type ScheduleTimings,
} from '../../schema/index.js';

/** One decided firing for one target; the host claims it, wakes the target and records the row. */
export interface Firing {
  readonly schedule: EffectiveSchedule;
  readonly target_handle: string;
  readonly scheduled_at: string;
  readonly outcome: typeof ScheduleOutcome.Fired | typeof ScheduleOutcome.SkippedCatchup;
}

/** Next fire time (ISO) per schedule key; a schedule that is not runnable has none. */
export type DueMap = Readonly<Record<string, string>>;

/**
 * When each runnable schedule's current timing was first planned (ISO) per schedule key; null: before
 * the fleet kept timings. No firing before it is owed.
 */
export type PlannedFrom = Readonly<Record<string, string | null>>;

const fanOut = (schedule: EffectiveSchedule, at: Date, outcome: Firing['outcome']): Firing[] =>
  schedule.runners.map((target_handle) => ({
    schedule,
    target_handle,
    scheduled_at: at.toISOString(),
    outcome,
  }));

/** First fire time strictly after `at` for every runnable schedule. */
export function planDue(schedules: readonly EffectiveSchedule[], at: Date): DueMap {
  const due: Record<string, string> = {};
  for (const schedule of schedules.filter(isRunnable)) {
    const { cron, timezone } = timingOf(schedule);
    const next = nextFireTime(cron, timezone, at);
    if (next !== null) due[scheduleKey(schedule)] = next.toISOString();
  }
  return due;
}

/**
 * Re-plan after a config apply: a schedule whose timing is unchanged keeps its pending fire time
 * (so an apply landing just before a firing does not skip it); others start from `at`.
 */
export function replanDue(
  previous: readonly EffectiveSchedule[],
  previousDue: DueMap,
  schedules: readonly EffectiveSchedule[],
  at: Date,
): DueMap {
  const before = new Map(previous.map((s) => [scheduleKey(s), s]));
  const fresh = planDue(schedules, at);
  const due: Record<string, string> = {};
  for (const schedule of schedules) {
    const key = scheduleKey(schedule);
    const next = fresh[key];
    if (next === undefined) continue;
    const old = before.get(key);
    const pending = previousDue[key];
    const was = old === undefined ? undefined : timingOf(old);
    const is = timingOf(schedule);
    const sameTiming = was?.cron === is.cron && was.timezone === is.timezone;
    due[key] = sameTiming && pending !== undefined ? pending : next;
  }
  return due;
}

/**
 * The timings to record after an apply at `at` (the same rule as `replanDue`): a runnable schedule
 * whose cron and timezone are unchanged keeps its planned-from, a new or re-timed one is planned from
 * `at`, one no longer runnable is dropped. With nothing recorded yet (a fleet that kept no timings)
 * every schedule is recorded as planned before (null). A schedule holding a secret is recorded as written
 * with the digest of its values (never the values); a record without a digest holds the values themselves
 * (so do records from before digests).
 */
export function retime(
  recorded: ScheduleTimings | null,
  schedules: readonly EffectiveSchedule[],
  at: Date,
): ScheduleTimings {
  const out: Record<string, ScheduleTimings['schedules'][string]> = {};
  for (const schedule of schedules.filter(isRunnable)) {
    const key = scheduleKey(schedule);
    const old = recorded?.schedules[key];
    const { cron, timezone } = schedule;
    const digest = schedule.resolved === undefined ? undefined : timingDigest(schedule.resolved);
    const values = timingOf(schedule);
    const same =
      old === undefined
        ? false
        : old.digest === undefined
          ? old.cron === values.cron && old.timezone === values.timezone
          : old.digest === digest && old.cron === cron && old.timezone === timezone;
    const kept = same ? old!.planned_from : undefined;
    out[key] = {
      cron,
      timezone,
      ...(digest !== undefined && { digest }),
      planned_from: kept !== undefined ? kept : recorded === null ? null : at.toISOString(),
    };
  }
  return { schedules: out };
}

/** Planned-from per schedule key of recorded timings. */
export function plannedFrom(timings: ScheduleTimings): PlannedFrom {
  return Object.fromEntries(Object.entries(timings.schedules).map(([key, t]) => [key, t.planned_from]));
}

/** The later of the two instants (null: none). */
function later(a: Date | null, b: string | null | undefined): Date | null {
  if (a === null || b === null || b === undefined) return a;
  return new Date(Math.max(a.getTime(), new Date(b).getTime()));
}

/**
 * On taking the duty at `at`: for each runnable schedule, the most recent firing in (`since`, `at`]
 * is fired when it falls at `at` itself or when the schedule has `catchup` and `at` is inside its
 * window; otherwise it is recorded as `skipped_catchup`. Older missed firings are not recorded.
 * A schedule written or re-timed after `since` owes only from then (`planned`): nobody owed its
 * earlier fire times.
 */
export function catchupFirings(
  schedules: readonly EffectiveSchedule[],
  since: Date | null,
  at: Date,
  planned: PlannedFrom = {},
): Firing[] {
  const out: Firing[] = [];
  for (const schedule of schedules.filter(isRunnable)) {
    const from = later(since, planned[scheduleKey(schedule)]);
    const { cron, timezone } = timingOf(schedule);
    const missed = missedFiring(cron, timezone, from, at);
    if (missed === null) continue;
    const onTime = missed.scheduledAt.getTime() === at.getTime();
    const fire = onTime || (schedule.catchup && missed.withinWindow);
    out.push(
      ...fanOut(schedule, missed.scheduledAt, fire ? ScheduleOutcome.Fired : ScheduleOutcome.SkippedCatchup),
    );
  }
  return out;
}

/**
 * At a timer tick: every schedule whose fire time has come fires once, for the latest fire time
 * at or before `at` (a tick that comes late does not fire the passed ones twice), and is re-planned.
 */
export function dueFirings(
  schedules: readonly EffectiveSchedule[],
  due: DueMap,
  at: Date,
): { firings: Firing[]; due: DueMap } {
  const firings: Firing[] = [];
  const next: Record<string, string> = { ...due };
  for (const schedule of schedules.filter(isRunnable)) {
    const key = scheduleKey(schedule);
    const pending = due[key];
    if (pending === undefined || new Date(pending).getTime() > at.getTime()) continue;
    firings.push(...fanOut(schedule, latestDue(schedule, new Date(pending), at), ScheduleOutcome.Fired));
    const { cron, timezone } = timingOf(schedule);
    const following = nextFireTime(cron, timezone, at);
    if (following === null) delete next[key];
    else next[key] = following.toISOString();
  }
  return { firings, due: next };
}

/**
 * The last fire time in [`pending`, `at`], stepping forward from `pending` so the times are the
 * ones `nextFireTime` gives (in a DST overlap, stepping back could name the repeated wall time).
 */
function latestDue(schedule: EffectiveSchedule, pending: Date, at: Date): Date {
  const { cron, timezone } = timingOf(schedule);
  let latest = pending;
  for (let step = 0; step < 1000; step++) {
    const next = nextFireTime(cron, timezone, latest);
    if (next === null || next.getTime() > at.getTime()) return latest;
    latest = next;
  }
  return latestFireTime(cron, timezone, at) ?? latest;
}

/** The earliest pending fire time, or null when nothing is planned. */
export function earliest(due: DueMap): string | null {
  let min: string | null = null;
  for (const at of Object.values(due)) if (min === null || new Date(at) < new Date(min)) min = at;
  return min;
}
