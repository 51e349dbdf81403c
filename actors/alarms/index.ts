export { startAlarms, type AlarmsHost, type AlarmsOptions } from './alarms.host.js';
export {
  changes,
  CRASH_LOOP_RESTARTS,
  evaluate,
  summary,
  type Alarm,
  type AlarmFacts,
} from './alarms.rules.js';
