export type { Validation } from './config-write.machine.js';
export { executeWrite, readActive, startConfigWriter, type ConfigWriter } from './config.host.js';
export { createApplier, type SubsystemApplier } from './apply.host.js';
export { activePointerKey, configSubjects } from './config.subjects.js';
export { createLagWatch, POSTURE_LAG_MS } from './lag.js';
export { revisionMachine, type RevisionEvent } from './revision.machine.js';
export {
  emptyRevisionTable,
  foldRevisionFact,
  peerApplied,
  revisionStatus,
  type RevisionFact,
} from './revisions.js';
export { startRevisions, type Revisions } from './revision.host.js';
