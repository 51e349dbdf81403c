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
export {
  admissionOf,
  categoryOf,
  compareInstants,
  Coverage,
  EventAnswer,
  EventRow,
  EventsCursor,
  EventsPage,
  EventTypeCategories,
  ExcludedEventTypes,
  instantOf,
  isFeedType,
  isNewer,
  isStoredType,
  parseInstant,
  toFullEvent,
  toRow,
  TraceAnswer,
  type EventAdmission,
  type Exclusion,
  type Instant,
} from './events/index.js';
export {
  ClientFrame,
  QueryErrorCode,
  QueryFrame,
  ServerFrameKind,
  type QueryFailure,
  type QueryResult,
  type ServerFrame,
} from './stream-frames.js';
export { Payloads } from './events/index.js';
export { ToolEntry } from './tools.js';
