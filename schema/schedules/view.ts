/** A schedule as `/schedules` shows it: the effective schedule plus `next_run` at a given instant. */
import { timingOf, type EffectiveSchedule, type ScheduleView } from './schedule.js';
import { nextFireTime } from './time.js';

/** True when the scheduler will fire it: enabled, schedulable and with someone to wake. */
export function isRunnable(schedule: EffectiveSchedule): boolean {
  return schedule.enabled && schedule.problem === null && schedule.runners.length > 0;
}

/** `next_run` is the first fire time after `now`; empty when disabled or never firing again. */
export function scheduleView(schedule: EffectiveSchedule, now: Date): ScheduleView {
  // `resolved` is left out: a secret's value is shown to no one.
  const { problem, resolved: _resolved, ...fields } = schedule;
  const { cron, timezone } = timingOf(schedule);
  let next: Date | null = null;
  if (schedule.enabled && problem === null) next = nextFireTime(cron, timezone, now);
  return { ...fields, runners: [...schedule.runners], next_run: next?.toISOString() ?? '' };
}
