export { isRecord, type JsonObject } from './json.js';
export { chainResolvers, listRefs, substituteDeep, substituteRefs, type Resolver } from './env-refs.js';
export { formatProblems, type Problem } from './problems.js';
export { NodeRole, parseTierA } from './tier-a.js';
export type { LoadOptions, TierA, TierAResult } from './tier-a.js';
export { HealthEnvelope, NodeOnlyHealth, NotReady, Posture } from './health.js';
export type { Readiness } from './health.js';
export {
  ActivePointer,
  ApplyOrder,
  ApplyStatus,
  ConfigWrite,
  ConfigWriteReply,
  RevisionApplied,
  RevisionRecord,
} from './config.js';
export type { RevisionMeta, Subsystem } from './config.js';
export { ErrorBody, ErrorCode, errorCatalogue, errorUse } from './errors.js';
export type { ErrorVariant } from './errors.js';
export {
  agentId,
  Company,
  companyJsonSchema,
  derivedOf,
  isSecretPath,
  knownKeysAt,
  LlmProvider,
  MAX_YAML_ALIASES,
  McpServer,
  nestingProblem,
  parseCompanyJson,
  parseCompanyYaml,
  Seat,
  uuidv5,
  validateCompany,
  ValidationMode,
  walkCompany,
  unresolvedReferences,
} from './company/index.js';
export type { DerivedSeat, DerivedUnit } from './company/index.js';
export {
  carryUnknownKeys,
  depthBeyond,
  diffDocuments,
  entityIdentityMatches,
  findEntity,
  formatPath,
  isSealedDocument,
  jsonTextDepthBeyond,
  listEntities,
  listReferences,
  MAX_DOCUMENT_DEPTH,
  MAX_RENDER_DEPTH,
  mergePatch,
  opaqueMarker,
  parsePath,
  patchUnknownKeys,
  redact,
  restoreMasks,
  spliceEntity,
} from './document/index.js';
export type { EntityKind, KnownKeysAt } from './document/index.js';
export { EventCategory, EventRecord, isFailed, SpendPhase, SpendRecord } from './events/index.js';
export { InboxKind, InboxMessage } from './inbox.js';
export {
  deliveryKey,
  deliveryTrace,
  InboundNotification,
  RawDeliveryMeta,
  rawDeliveryMeta,
  RawHeader,
  Vendor,
  VendorActor,
  type Pipeline,
} from './webhooks.js';
export { handlePattern, seatIdentity } from './document/index.js';
export { seatDirectory, type DirectorySeat, type SeatDirectory } from './seat-directory.js';
export {
  Arrival,
  appRoster,
  installUrl,
  IntegrationCommand,
  IntegrationReply,
  IntegrationVerb,
  PassRefused,
  IntegrationRecord,
  InputsRefused,
  integrationState,
  kindSpec,
  MONITOR_TOKEN_MIN_LENGTH,
  namesToLookUp,
  NoDocument,
  PassFinished,
  PassMode,
  PassRun,
  PassStarted,
  PassStep,
  planInputs,
  seatSecretName,
  seatSegments,
  segmentsOf,
  SetupInputs,
  setupKinds,
  StepOutcome,
  valueAt,
  withValue,
} from './setup/index.js';
export type {
  IntegrationFacts,
  PassInput,
  PassSource,
  IntegrationState,
  KindSpec,
  LookupAnswer,
  Requirement,
} from './setup/index.js';
export {
  isSecretName,
  SECRET_VALUE_MAX_BYTES,
  secretAad,
  SecretDelete,
  SecretMeta,
  SecretPut,
  SecretRekey,
  SecretReply,
  SecretSource,
  StoredSecret,
} from './secrets.js';
export { CredentialPoolEntry, CredentialPoolKey, CredentialPoolSnapshot } from './credential-pool.js';
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
} from './tools.js';
export {
  CATCHUP_MAX_MS,
  CATCHUP_MIN_MS,
  catchupWindowMs,
  cronProblem,
  DEFAULT_SCHEDULE_TIMEOUT_SECONDS,
  EffectiveSchedule,
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
  scheduleView,
  ScheduleWake,
  type ResolveOptions,
} from './schedules/index.js';
export { DutyLease } from './duty.js';
export {
  BrokerDisagreement,
  BrokerMembership,
  BrokerPeer,
  BrokerServer,
  BrokerStream,
  FleetAnswer,
  LiveLease,
  NodePresence,
} from './fleet.js';
export type { NodeRemoval, PeerRemoval } from './fleet.js';
export { peopleOf, personFor, type Person } from './access.js';
export { credentialPoolFromDocument, keyRef } from './credential-refs.js';
export {
  admissionOf,
  canonicalInstant,
  categoryOf,
  compareInstants,
  compareStamps,
  Coverage,
  EventAnswer,
  EventRow,
  EventsPage,
  EventTypeCategories,
  ExcludedEventTypes,
  instantMs,
  instantOf,
  isFeedType,
  isNewer,
  isNotOlder,
  isStoredType,
  parseInstant,
  toFullEvent,
  toRow,
  TraceAnswer,
  type Instant,
} from './events/index.js';
export { ClientFrame, QueryErrorCode, type QueryFailure } from './stream-frames.js';
export { Payloads } from './events/index.js';
export {
  NeedsClearBody,
  PauseBody,
  ResumeBody,
  SeatCommandReply,
  SeatNeedsClear,
  SeatNeedsReply,
  SeatPause,
  SeatResume,
} from './seats.js';
export { Commands, defineCommand } from './commands/index.js';
export type { Command } from './commands/index.js';
export {
  BACKUP_FORMAT,
  BACKUP_MANIFEST,
  BackupContents,
  BackupFile,
  BackupManifest,
  BackupRecord,
  BackupsAnswer,
  BackupStatus,
  BackupStream,
} from './backups.js';
export {
  canMove,
  CommentBody,
  CreateItemBody,
  customFieldProblem,
  customFields,
  defaultFields,
  emptyWorkState,
  foldWork,
  groupOf,
  isOpId,
  itemByRef,
  ItemFields,
  MoveItemBody,
  OpId,
  parsePosition,
  priorities,
  priorityRank,
  PROJECT_KEY,
  projectsOf,
  PURGE_REASON_MAX_BYTES,
  PurgeBody,
  seatKindsOf,
  StatusGroup,
  statusGroups,
  taskTypeNamed,
  taskTypes,
  UpdateItemBody,
  WORK_GENERATION,
  WORK_STREAM,
  WorkChange,
  workMoves,
  WorkRecord,
  workStatuses,
  WorkWrite,
  WorkWriteReply,
} from './work/index.js';
export type { ActivityRow, WorkFile, WorkItem, WorkOutcome, WorkProject, WorkState } from './work/index.js';
// A person's own tracker state: inbox read and snooze marks, priorities, saved and pinned views.
export {
  builtinViewId,
  formatPosition,
  InboxReadBody,
  InboxSnoozeBody,
  InboxUnsnoozeBody,
  PERSON_LIMITS,
  PinViewBody,
  PrioritiesBody,
  SaveViewBody,
  UpdateViewBody,
} from './work/index.js';
export type { PersonAct, PersonState, SavedView } from './work/index.js';
export {
  SandboxAnswerReply,
  SandboxQuestion,
  SandboxResult,
  SandboxRunRecord,
  SandboxTelemetry,
} from './sandbox/index.js';
export {
  ServiceCaller,
  serviceToolInputSchema,
  type ServiceTool,
  type ServiceToolResult,
} from './service-tools.js';
export {
  PageCommentBody,
  ContainerKey,
  containersOf,
  type Container,
  PageBody,
  PageLimits,
  PageOutcome,
  PageRecord,
  PageRefusalCode,
  PageTitle,
  PageWrite,
  PageWriteReply,
  type PageChangeInput,
} from './pages/index.js';
export { noopTracer, type SpanStart, type Tracer, type TraceSpan } from './tracing.js';
