/** Setup of integrations: each kind's requirement list, the state computation, and the inputs plan. */
export { chatSetup } from './chat.js';
export { codehostASetup } from './codehost-a.js';
export { codehostBSetup } from './codehost-b.js';
export { kindSpec, setupKinds } from './kinds.js';
export { MONITOR_TOKEN_MIN_LENGTH, monitorSetup } from './monitor.js';
export { relaySetup } from './relay.js';
export {
  PassMode,
  PassRun,
  PassStep,
  RequirementKind,
  SetupInputs,
  SetupKind,
  StepOutcome,
  type KindSpec,
  type Requirement,
} from './requirement.js';
export {
  integrationState,
  namesToLookUp,
  type IntegrationState,
  type LookupAnswer,
  type Lookups,
  type LookupSource,
  type RequirementState,
  type StateInput,
} from './state.js';
export {
  IntegrationCommand,
  IntegrationReply,
  IntegrationVerb,
  PassRefusal,
  PassRefused,
  type IntegrationFacts,
  type PassInput,
  type PassSource,
} from './commands.js';
export {
  Arrival,
  ArrivalOutcome,
  IntegrationRecord,
  IntegrationRecordType,
  PassFinished,
  PassStarted,
} from './records.js';
export { seatSegments, segmentsOf, valueAt, withValue } from './doc-paths.js';
export { trackerASetup } from './tracker-a.js';
export { trackerBSetup } from './tracker-b.js';
export { wikiSetup } from './wiki.js';
export {
  InputsRefused,
  NoDocument,
  planInputs,
  seatSecretName,
  type InputProblem,
  type InputsPlan,
  type Seal,
} from './inputs.js';
