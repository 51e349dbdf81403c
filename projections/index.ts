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
