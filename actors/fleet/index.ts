/** The fleet: node presence, the fleet view behind `/fleet` and the probes, and the removal of a departed node. */
export { fleetAnswer, watchFleet, type FleetView } from './fleet.view.js';
export { removeNode } from './fleet.remove.js';
export { startPresence, type Presence, type PresenceDescription, type PresenceFacts } from './presence.js';
export { describeProcess, refuseRunningDuplicate, runningProcess } from './duplicate.js';
