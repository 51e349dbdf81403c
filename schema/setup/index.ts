/** Setup of integrations: each kind's requirement list, the state computation, and the inputs plan. */
export { kindSpec, setupKinds } from './kinds.js';
export { MONITOR_TOKEN_MIN_LENGTH } from './monitor.js';
export {
  PassMode,
  PassRun,
  PassStep,
  SetupInputs,
  StepOutcome,
  type KindSpec,
  type Requirement,
} from './requirement.js';
export { appRoster, installUrl } from './app-roster.js';
export {
  integrationState,
  namesToLookUp,
  setupFindings,
  withheldReference,
  type IntegrationState,
  type LookupAnswer,
  type SetupFinding,
} from './state.js';
export {
  CallerKind,
  callerOf,
  commandCaller,
  IntegrationCommand,
  IntegrationReply,
  IntegrationVerb,
  PassRefused,
  type Caller,
  type IntegrationFacts,
  type PassInput,
  type PassSource,
} from './commands.js';
export {
  Arrival,
  ArrivalOutcome,
  ArrivalsRollup,
  IntegrationRecord,
  PassFinished,
  PassStarted,
  SurfaceCounts,
} from './records.js';
export { seatSegments, segmentsOf, valueAt, withValue } from './doc-paths.js';
export { InputsRefused, NoDocument, planInputs, seatSecretName, type Seal } from './inputs.js';
