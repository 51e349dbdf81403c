export type {
  Bus,
  DeliveredMessage,
  Kv,
  KvEntry,
  PubAck,
  PublishOptions,
  ReplayOptions,
  SkipBodies,
  StoredMessage,
  Subscription,
} from './bus.js';
export { Retention } from './bus.js';
export {
  BusError,
  WrongLastSequenceError,
  KvConflictError,
  InvalidNameError,
  StreamNotFoundError,
  NoStreamForSubjectError,
  NoRespondersError,
  RequestTimeoutError,
  IncompleteReplyError,
  RemoteError,
  EngineUnavailableError,
  BusClosedError,
  RedeliverError,
  TerminateError,
  BackupError,
} from './errors.js';
export { assertName, assertSubject, subjectMatches } from './subject-match.js';
export { eventTypeOf, seatLogPart, Subjects } from './subjects.js';
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
  WIKI_DEDUP_MS,
  type Catalogue,
  type CatalogueOptions,
} from './catalogue.js';
export { openMemoryBus } from './memory/index.js';
export { openBus, type OpenBusOptions } from './open.js';
export { answerProbes, probe, probeOutcome } from './probe.js';
export { admittedCategory, LiveOriginHeader, publishEvent, UnmappedEventTypeError } from './publish-event.js';
export { newEvent } from './event-factory.js';
export {
  gcmOpen,
  heldDocumentKeyId,
  keyringFrom,
  open,
  openDocument,
  seal,
  sealDocument,
  sealedKeyId,
  SealError,
  type Keyring,
} from './sealing.js';
export { restoreBackup } from './restore.js';
export { CommandReplyError, sendCommand, serveCommand } from './commands.js';
