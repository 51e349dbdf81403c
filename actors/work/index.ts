export { decideWork, noticeLine, purgeReasonProblem } from './work.decide.js';
export type { Accepted, Fresh, Refusal, TaskEvent, WorkContext } from './work.types.js';
export { startWorkHost } from './work.host.js';
export type { WorkHost, WorkHostOptions, WorkStateView } from './work.host.js';
