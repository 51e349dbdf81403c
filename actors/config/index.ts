export { checkPreconditions, configWriteMachine } from './config-write.machine.js';
export type {
  ActivateInput,
  ActivateOutput,
  ActiveRead,
  Validation,
  WriteInput,
} from './config-write.machine.js';
export {
  executeWrite,
  readActive,
  startConfigWriter,
  type ConfigWriterOptions,
  type Validate,
} from './config.host.js';
export {
  createApplier,
  type Applier,
  type ApplierOptions,
  type RevisionSource,
  type SubsystemApplier,
} from './apply.host.js';
export { activePointerKey, configSubjects } from './config.subjects.js';
export { createLagWatch, POSTURE_LAG_MS, type LagWatch } from './lag.js';
export {
  revisionMachine,
  type NodeApply,
  type RevisionContext,
  type RevisionEvent,
} from './revision.machine.js';
export {
  emptyRevisionTable,
  foldRevisionFact,
  peerApplied,
  revisionStatus,
  type RevisionFact,
  type RevisionSnapshot,
  type RevisionStatus,
  type RevisionTable,
} from './revisions.js';
export { startRevisions, type Revisions, type RevisionsOptions } from './revision.host.js';
