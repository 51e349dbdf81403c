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
export * from './errors.js';
export { assertName, assertSubject, subjectMatches } from './subject-match.js';
