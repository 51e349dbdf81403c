/** Schedules (spec "Schedule"): arithmetic, resolution from the document, views, ledger rows, wakes. */
export {
  CATCHUP_MAX_MS,
  CATCHUP_MIN_MS,
  catchupWindowMs,
  cronProblem,
  isKnownTimezone,
  latestFireTime,
  missedFiring,
  nextFireTime,
  nextFireTimes,
  periodAfter,
  ScheduleTimeError,
  type MissedFiring,
} from './time.js';
export { companyTimezone, DEFAULT_TIMEZONE, resolveSchedules, type ResolveOptions } from './resolve.js';
export {
  DEFAULT_SCHEDULE_TIMEOUT_SECONDS,
  EffectiveSchedule,
  isScheduledTimeoutBreached,
  LedgerRow,
  SCHEDULE_FIRED,
  ScheduledTimeoutBreach,
  scheduledDeadline,
  scheduledTimeoutBreach,
  scheduleKey,
  ScheduleOutcome,
  SchedulesAnswer,
  ScheduleView,
  ScheduleWake,
  ScopeType,
} from './schedule.js';
export { isRunnable, scheduleView } from './view.js';
