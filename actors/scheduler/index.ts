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
