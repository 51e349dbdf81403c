export { startAlarms } from './alarms.host.js';
export { changes, CRASH_LOOP_RESTARTS, evaluate, summary, type AlarmFacts } from './alarms.rules.js';
