export { chainResolvers, listRefs, substituteDeep, substituteRefs, type Resolver } from './env-refs.js';
export { formatIssuePath, formatProblems, type Problem } from './problems.js';
export { loadTierA, NodeRole, parseTierA, QueueType, TierAFile } from './tier-a.js';
export type { LoadOptions, TierA, TierAResult } from './tier-a.js';
export {
  HealthEnvelope,
  HealthStatus,
  NodeHealth,
  NodeOnlyHealth,
  NotReady,
  Posture,
  ReadyReason,
} from './health.js';
export type { Readiness } from './health.js';
export {
  ActivePointer,
  ApplyOrder,
  ApplyStatus,
  ConfigWrite,
  ConfigWriteReply,
  CreatedByKind,
  RevisionActivated,
  RevisionApplied,
  RevisionRecord,
  RevisionSource,
  WritePrecondition,
} from './config.js';
export type { RevisionMeta, Subsystem } from './config.js';
export { ErrorBody, ErrorCode, errorCatalogue, errorStatuses, errorUse } from './errors.js';
export type { ErrorEntry, ErrorStatus, ErrorUse, ErrorVariant } from './errors.js';
export {
  AGENT_NAMESPACE,
  agentId,
  CodehostBAccessLevels,
  Company,
  companyJsonSchema,
  ContactField,
  Integrations,
  isSecretPath,
  knownKeysAt,
  LlmProvider,
  LlmType,
  McpServer,
  NAMESPACE_DNS,
  NAMESPACE_URL,
  namesSecret,
  parseCompanyYaml,
  pathOf,
  ProblemKind,
  ReferenceKind,
  Schedule,
  ScheduleTarget,
  Seat,
  SeatKind,
  Unit,
  UnitType,
  uuidv5,
  validateCompany,
  ValidationMode,
  WarningKind,
  yamlLines,
} from './company/index.js';
export type {
  CompanyProblem,
  CompanyValidation,
  CompanyWarning,
  Derived,
  DerivedSeat,
  DerivedUnit,
  Segment,
  ValidateOptions,
  YamlParse,
} from './company/index.js';
export {
  carryUnknownKeys,
  diffDocuments,
  entityIdentityMatches,
  findEntity,
  formatPath,
  isMarker,
  isSealedDocument,
  listReferences,
  mergePatch,
  opaqueMarker,
  parsePath,
  patchUnknownKeys,
  redact,
  restoreMasks,
  spliceEntity,
} from './document/index.js';
export type { Change, EntityKind, IsSecret, KnownKeysAt, Marker, RestoreProblem } from './document/index.js';
export {
  gcmOpen,
  keyringFrom,
  open,
  openDocument,
  seal,
  sealDocument,
  sealedKeyId,
  SealError,
  type Keyring,
} from './sealing.js';
export {
  EventCategory,
  EventRecord,
  FailureTypes,
  isFailed,
  newEvent,
  SpendPhase,
  SpendRecord,
  type NewEvent,
} from './events/index.js';
export { Payloads } from './events/index.js';
export {
  isSecretName,
  SECRET_NAME,
  SECRET_NAME_MAX,
  SECRET_VALUE_MAX_BYTES,
  secretAad,
  SecretActor,
  SecretCommandVerb,
  SecretDelete,
  SecretMeta,
  SecretName,
  SecretPut,
  SecretRekey,
  SecretReply,
  SecretSource,
  StoredSecret,
} from './secrets.js';
export { CredentialPoolEntry, CredentialPoolKey, CredentialPoolSnapshot } from './credential-pool.js';
export { deriveHandle, seatIdentity } from './document/index.js';
export {
  McpServersAnswer,
  mcpSource,
  RoutedToolResult,
  TextPart,
  ToolCall,
  ToolEntry,
  ToolResult,
  ToolServerState,
  ToolServerStatus,
  ToolSource,
} from './tools.js';
export {
  CATCHUP_MAX_MS,
  CATCHUP_MIN_MS,
  catchupWindowMs,
  companyTimezone,
  cronProblem,
  DEFAULT_TIMEZONE,
  EffectiveSchedule,
  isKnownTimezone,
  isRunnable,
  isScheduledTimeoutBreached,
  latestFireTime,
  LedgerRow,
  missedFiring,
  nextFireTime,
  nextFireTimes,
  periodAfter,
  resolveSchedules,
  SCHEDULE_FIRED,
  ScheduledTimeoutBreach,
  scheduledDeadline,
  scheduledTimeoutBreach,
  scheduleKey,
  ScheduleOutcome,
  SchedulesAnswer,
  ScheduleTimeError,
  ScheduleView,
  scheduleView,
  ScheduleWake,
  ScopeType,
  type MissedFiring,
  type ResolveOptions,
} from './schedules/index.js';
export { InboxKind, InboxMessage } from './inbox.js';
export { DutyLease } from './duty.js';
export { BindingState, peopleOf, personFor, type Person } from './access.js';
export { credentialPoolFromDocument, envFallback, keyRef } from './credential-refs.js';
export {
  PauseBody,
  ResumeBody,
  SeatCommandReply,
  SeatCommandVerb,
  SeatPause,
  SeatResume,
} from './seats.js';
