export type { WorkContext } from './work.types.js';
export { startWorkHost } from './work.host.js';
export type { WorkHost } from './work.host.js';
export { startRetentionAcks } from './work.retention.host.js';
export type { RetentionAcks } from './work.retention.host.js';
export { startFileSweep } from './work.files.sweep.js';
export { EFFECTS_DURABLE } from './work.effects.host.js';
