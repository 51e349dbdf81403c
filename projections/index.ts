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
export { ReadModels, type Coverage, type ReadModelsOptions } from './readmodels.js';
export { SectionHub, type PushMode, type SnapshotSection } from './snapshot-section.js';
export { agentsProjection, seedBound } from './agents.projection.js';
export { memoryProjection } from './memory.projection.js';
export { sandboxesProjection } from './sandboxes.projection.js';
export { tokensProjection } from './tokens.ledger.js';
export type { ReadModel } from './read-model.js';
