export { schedulerMachine, type SchedulerEvent } from './scheduler.machine.js';
export { type Firing } from './scheduler.plan.js';
export { systemClock, type Clock } from './clock.js';
export { acquireDuty, dutyKey, readDuty, releaseDuty, renewDuty, type Held } from './duty.js';
export { TIMINGS_KEY } from './timings.js';
export { claimKey } from './fire.js';
export {
  SCHEDULER_DUTY,
  startScheduler,
  type SchedulerHost,
  type SchedulerOptions,
} from './scheduler.host.js';
