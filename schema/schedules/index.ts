/** Schedules (spec "Schedule"): arithmetic, resolution from the document, views, ledger rows, wakes. */
export {
  CATCHUP_MAX_MS,
  CATCHUP_MIN_MS,
  catchupWindowMs,
  cronProblem,
  latestFireTime,
  missedFiring,
  nextFireTime,
  nextFireTimes,
  periodAfter,
} from './time.js';
export { companyTimezone, companyZone, resolveSchedules, type ResolveOptions } from './resolve.js';
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
  ScheduleTimings,
  ScheduleWake,
  timingDigest,
  timingOf,
} from './schedule.js';
export { ClaimState, FiringClaim } from './claim.js';
export { isRunnable, scheduleView } from './view.js';
