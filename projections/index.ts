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
