export { schedulerMachine, type SchedulerContext, type SchedulerEvent } from './scheduler.machine.js';
export {
  catchupFirings,
  dueFirings,
  earliest,
  planDue,
  replanDue,
  type DueMap,
  type Firing,
} from './scheduler.plan.js';
export { systemClock, type Clock } from './clock.js';
export {
  acquireDuty,
  dutyKey,
  readDuty,
  releaseDuty,
  renewDuty,
  type AcquireResult,
  type DutyIdentity,
  type Held,
} from './duty.js';
export { claimKey, firingIdentity, runFiring, type FireDeps } from './fire.js';
export {
  SCHEDULER_DUTY,
  startScheduler,
  type SchedulerHost,
  type SchedulerOptions,
} from './scheduler.host.js';
