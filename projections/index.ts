export {
  activeRevision,
  applyConfigFact,
  configAudit,
  emptyConfigState,
  listRevisions,
  metaOf,
  type ConfigFact,
  type ConfigState,
} from './config.projection.js';
export { followConfig, type ConfigFollowOptions, type ConfigView } from './config.follow.js';
export {
  applySecretFact,
  emptySecretsState,
  listSecrets,
  metaOfSecret,
  secretRecord,
  type SecretFact,
  type SecretsState,
} from './secrets.projection.js';
export { followSecrets, type SecretsView } from './secrets.follow.js';
export { secretsThenEnv, storeResolver } from './secrets.resolve.js';
export {
  applyScheduleEvent,
  emptySchedulesState,
  RECENT_RUNS_LIMIT,
  recentRuns,
  schedulesAnswer,
  schedulesProjection,
  type SchedulesState,
} from './schedules.projection.js';
export { followScheduleRuns, type ScheduleRunsView } from './schedules.follow.js';
