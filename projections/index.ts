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
