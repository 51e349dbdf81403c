export { EventCategory, EventRecord, FailureTypes, isFailed, newEvent, type NewEvent } from './record.js';
export { SpendPhase, SpendRecord } from './spend.js';
export * as Payloads from './payloads/index.js';
