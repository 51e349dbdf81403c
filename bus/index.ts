export type {
  Bus,
  ConsumeHandler,
  ConsumerSpec,
  CoreMessage,
  DeliveredMessage,
  FollowOptions,
  Headers,
  Kv,
  KvEntry,
  KvSpec,
  KvWatchOptions,
  PubAck,
  PublishOptions,
  ReplayOptions,
  ReplyHandler,
  RequestOptions,
  StoredMessage,
  StreamInfo,
  StreamSpec,
  Subscription,
} from './bus.js';
export { EngineKind, Retention } from './bus.js';
export {
  BusError,
  WrongLastSequenceError,
  KvConflictError,
  InvalidNameError,
  StreamNotFoundError,
  NoStreamForSubjectError,
  NoRespondersError,
  RequestTimeoutError,
  RemoteError,
  EngineUnavailableError,
  BusClosedError,
  RedeliverError,
  TerminateError,
  BackupError,
} from './errors.js';
export { assertName, assertSubject, subjectMatches } from './subject-match.js';
export { Subjects } from './subjects.js';
export {
  Buckets,
  catalogueStreams,
  COORD_HISTORY,
  ensureCatalogue,
  EVENT_HISTORY_SECONDS,
  SCHEDULE_CLAIMS_TTL_MS,
  SPEND_HISTORY_SECONDS,
  Streams,
  TURNS_DONE_TTL_MS,
  WEBHOOK_DEDUP_MS,
  WEBHOOK_HISTORY_MS,
  WEBHOOK_PIPELINES,
  WIKI_DEDUP_MS,
  type Catalogue,
  type CatalogueOptions,
  type StreamName,
} from './catalogue.js';
export { openMemoryBus, type MemoryBusOptions } from './memory/index.js';
export { openBus, type OpenBusOptions } from './open.js';
export { publishEvent, UnmappedEventTypeError } from './publish-event.js';
export { newEvent, type NewEvent } from './event-factory.js';
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
export { restoreBackup, type RestoreSource } from './restore.js';
export { CommandReplyError, sendCommand, serveCommand } from './commands.js';
