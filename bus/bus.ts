/**
 * The bus: the one interface every part of svc talks through. Two engines implement it
 * (`memory` in-process with SQLite persistence, `jetstream` on NATS); nothing outside `bus/`
 * knows which one runs. Payloads are bytes; typed codecs (zod) live with their users.
 */
import type { BrokerMembership, PeerRemoval } from '../schema/index.js';
import type { BackupContents } from '../schema/index.js';

/**
 * Header map carried by stream messages and requests. Keys are case-sensitive and both engines deliver them
 * as sent; a reader of a header another writer may spell differently compares names without case.
 */
export type Headers = Readonly<Record<string, string>>;

/** Retention of a stream: `limits` keeps by age/count; `workqueue` removes a message once acked. */
export const Retention = { Limits: 'limits', WorkQueue: 'workqueue' } as const;
export type Retention = (typeof Retention)[keyof typeof Retention];

export interface StreamSpec {
  /** Stream name: letters, digits, `_` and `-`. */
  readonly name: string;
  /** Subjects captured by the stream; wildcards `*` and `>` allowed. */
  readonly subjects: readonly string[];
  readonly retention?: Retention;
  /** Messages older than this are discarded; 0 or absent keeps forever. */
  readonly maxAgeMs?: number;
  /** Oldest messages are discarded past this count; 0 or absent means unlimited. */
  readonly maxMsgs?: number;
  /** Window in which a repeated `msgId` is acknowledged as a duplicate and not stored. Default 2 min. */
  readonly duplicateWindowMs?: number;
}

export interface StreamInfo {
  readonly name: string;
  /** Sequence of the oldest retained message; `lastSeq + 1` when empty. */
  readonly firstSeq: number;
  /** Sequence of the newest message ever stored; 0 when nothing was ever stored. */
  readonly lastSeq: number;
  readonly messages: number;
}

export interface PublishOptions {
  readonly headers?: Headers;
  /** De-duplication id: a repeat within the stream's duplicate window is not stored again. */
  readonly msgId?: string;
  /** Refuse (WrongLastSequenceError) unless the stream's last sequence equals this. */
  readonly expectedLastSeq?: number;
  /** Refuse (WrongLastSequenceError) unless the last message on this subject has this sequence (0 = none). */
  readonly expectedLastSubjectSeq?: number;
}

export interface PubAck {
  readonly stream: string;
  readonly seq: number;
  /** True when `msgId` was seen inside the duplicate window and nothing new was stored. */
  readonly duplicate: boolean;
}

/** A message as stored in a stream. */
export interface StoredMessage {
  readonly stream: string;
  readonly seq: number;
  readonly subject: string;
  /** Server time the message was stored. */
  readonly time: Date;
  readonly headers: Headers;
  readonly data: Uint8Array;
}

/** A core (non-stored) message seen by `subscribe` or answered by `reply`. */
export interface CoreMessage {
  readonly subject: string;
  readonly headers: Headers;
  readonly data: Uint8Array;
}

export interface ReplayOptions {
  /** Start at this sequence (inclusive). */
  readonly fromSeq?: number;
  /** Start at the first message stored at or after this instant. */
  readonly since?: Date;
  /** Only messages whose subject matches this filter (wildcards allowed). */
  readonly subject?: string;
  /** Stop after this sequence (inclusive). Default: the stream's last sequence when replay starts. */
  readonly toSeq?: number;
  /**
   * Messages on `subject` (no wildcards) that carry the header `header` may come with an empty `data`: a
   * reader that needs only what that header says spares reading large bodies. An engine that cannot leave
   * bodies out sends them whole, so a reader copes with both.
   */
  readonly skipBodies?: SkipBodies;
}

export interface SkipBodies {
  readonly subject: string;
  readonly header: string;
}

export interface FollowOptions {
  readonly fromSeq?: number;
  readonly since?: Date;
  readonly subject?: string;
}

export interface ConsumerSpec {
  /** Durable name; its position survives restarts. */
  readonly durable: string;
  readonly filterSubject?: string;
  /**
   * How long a message handed out and not acknowledged waits before redelivery once no live handler
   * holds it (a handler still running keeps it; a dead or cut-off consumer loses it). Default 30 s.
   */
  readonly ackWaitMs?: number;
  /** Give up on a message after this many deliveries (it is then skipped). 0/absent = unlimited. */
  readonly maxDeliver?: number;
  /** Where a newly created durable starts: `all` (default) or `new`. */
  readonly deliverPolicy?: 'all' | 'new';
  /**
   * Handler calls in flight at once (default 1: one at a time, in stream order). Calls still start in
   * stream order, and what they publish before their first other await lands in that order; a consumer
   * whose handlers need strict order end to end keeps 1. More lets one commit carry many messages' work.
   * The memory engine also starts no call past the first while 16 MiB of bodies are in flight.
   */
  readonly concurrency?: number;
  /**
   * Messages handed out and not yet acknowledged across every subscriber of the durable, every node of a
   * fleet (default 1,000). 1 keeps stream order fleet-wide: no node takes the next message while another
   * holds one. In one process it caps `concurrency`.
   */
  readonly maxInFlight?: number;
}

/** A message handed to a durable consumer's handler. */
export interface DeliveredMessage extends StoredMessage {
  /** 1 on first delivery, 2+ on redelivery. */
  readonly deliveryCount: number;
}

/**
 * Handler outcome decides the ack: returning acknowledges; throwing asks for redelivery
 * (after `ackWaitMs`, or sooner when `RedeliverError.delayMs` says so); throwing
 * `TerminateError` drops the message for good. Only the bus host acks (house style 10).
 */
export type ConsumeHandler = (msg: DeliveredMessage) => Promise<void>;

export interface Subscription {
  /** Stops delivery; resolves when no handler call is in flight. */
  stop(): Promise<void>;
}

export interface RequestOptions {
  readonly timeoutMs: number;
  readonly headers?: Headers;
}

export type ReplyHandler = (msg: CoreMessage) => Promise<Uint8Array>;

// ---------------------------------------------------------------- KV

export interface KvSpec {
  /** Bucket name: letters, digits, `_` and `-`. */
  readonly name: string;
  /** Records kept per key (history). At least 64 for contended keys (DESIGN.md). Default 64. */
  readonly history?: number;
  /** Keys expire this long after their last write; absent = never. */
  readonly ttlMs?: number;
}

export interface KvEntry {
  readonly bucket: string;
  readonly key: string;
  readonly value: Uint8Array;
  /** Revision of this record: its stream sequence, unique and increasing across the bucket. */
  readonly revision: number;
  readonly created: Date;
  /** `put` for a value; `delete` marks a tombstone in history and watch. */
  readonly operation: 'put' | 'delete';
}

export interface KvWatchOptions {
  /** Key filter, wildcards `*` and `>` allowed; default every key. */
  readonly key?: string;
  /** Deliver the current value of every matching key first (then live changes). Default true. */
  readonly initial?: boolean;
}

export interface Kv {
  readonly name: string;
  /** The key's current valid value, or null when absent, deleted or expired. */
  get(key: string): Promise<KvEntry | null>;
  /** Writes unconditionally. */
  put(key: string, value: Uint8Array): Promise<number>;
  /** Writes only when the key is absent (or deleted); else KvConflictError. */
  create(key: string, value: Uint8Array): Promise<number>;
  /**
   * Writes only when the key's current valid revision equals `expectedRevision`; else
   * KvConflictError. The win is confirmed against the key's history (log-order arbitration),
   * so on a clustered JetStream two racing updates never both succeed.
   */
  update(key: string, value: Uint8Array, expectedRevision: number): Promise<number>;
  /** Tombstones the key; with `expectedRevision` only when it matches. */
  delete(key: string, opts?: { expectedRevision?: number }): Promise<void>;
  /** Current keys (not deleted, not expired), optionally filtered. */
  keys(filter?: string): Promise<string[]>;
  /** Valid records of one key, oldest first, deletes included. Losers of races are excluded. */
  history(key: string): Promise<KvEntry[]>;
  /**
   * Calls `onEntry` for every change in order. With `initial` (the default) every matching key's current
   * value comes first, once each, all before the returned promise resolves; live changes follow.
   */
  watch(onEntry: (entry: KvEntry) => void, opts?: KvWatchOptions): Promise<Subscription>;
}

// ---------------------------------------------------------------- bus

export const EngineKind = {
  Memory: 'memory',
  JetStream: 'jetstream',
  JetStreamEmbedded: 'jetstream-embedded',
} as const;
export type EngineKind = (typeof EngineKind)[keyof typeof EngineKind];

export interface Bus {
  readonly engine: EngineKind;

  /** Creates the stream or updates its limits; idempotent. */
  ensureStream(spec: StreamSpec): Promise<StreamInfo>;
  streamInfo(stream: string): Promise<StreamInfo>;

  /** Appends to the stream capturing `subject` and resolves once it is durable. */
  publish(subject: string, data: Uint8Array, opts?: PublishOptions): Promise<PubAck>;
  /** One stored message by sequence, or null. */
  getMessage(stream: string, seq: number): Promise<StoredMessage | null>;
  /** The newest stored message on a subject (no wildcards), or null. */
  lastMessage(stream: string, subject: string): Promise<StoredMessage | null>;
  /**
   * The oldest stored message on a subject (no wildcards) at or after `fromSeq`, or null. Unlike a
   * replay it needs no consumer, so it reads work-queue streams too (a seat's waiting wakes).
   */
  nextMessage(stream: string, subject: string, fromSeq: number): Promise<StoredMessage | null>;
  /** Ordered, bounded read of a stream (ends at `toSeq` or the last sequence at start). */
  replay(stream: string, opts?: ReplayOptions): AsyncIterable<StoredMessage>;
  /** Ordered, unbounded push of a stream from a position; not durable. */
  follow(stream: string, opts: FollowOptions, onMessage: (msg: StoredMessage) => void): Promise<Subscription>;
  /**
   * Removes every message with a sequence below `seq` (none at or above it); resolves with how many went.
   * Sequences are never reused: the stream's first sequence becomes `seq` (or `lastSeq + 1` when empty).
   * With `subject` (wildcards allowed) only the messages on matching subjects go; the others stay.
   */
  purgeBelow(stream: string, seq: number, subject?: string): Promise<number>;
  /**
   * Removes a stream with its messages and its durable consumers' positions; resolves false when there was
   * no such stream. Stop its consumers and followers first.
   */
  deleteStream(stream: string): Promise<boolean>;
  /** Durable consumer: at-least-once, ack after the handler returns. */
  consume(stream: string, spec: ConsumerSpec, handler: ConsumeHandler): Promise<Subscription>;
  /**
   * Messages a durable consumer has not yet acknowledged (waiting or in a handler), or null when the
   * consumer does not exist. An upper bound where a filter skips messages it never delivers.
   */
  consumerPending(stream: string, durable: string): Promise<number | null>;
  /**
   * A durable consumer's ack floor in stream sequences: every message at or below it was acknowledged
   * (or is one the consumer never delivers: filtered out, dropped, removed), so the first message it may
   * still owe its handler is past it; null when the consumer does not exist. A durable created with
   * `deliverPolicy: 'new'` starts at the stream's last sequence then. Messages above the floor may be
   * acknowledged already, and the floor may stop at messages its filter skips until its next
   * acknowledgement: a reader that needs the first message still owed reads on from the floor.
   */
  consumerAckFloor(stream: string, durable: string): Promise<number | null>;

  /** Core, not stored: fire-and-forget to live subscribers. */
  emit(subject: string, data: Uint8Array, headers?: Headers): void;
  /**
   * Whether an `emit` on `subject` may reach a subscriber now, so a publisher can skip building a message
   * nobody would receive. False only where the engine knows none would: the memory engine (one process)
   * when none of its subscriptions matches. Always true on JetStream, whose subscribers may be elsewhere.
   */
  listened(subject: string): boolean;
  /** Core subscription; also sees messages published to streams. */
  subscribe(subject: string, onMessage: (msg: CoreMessage) => void): Subscription;
  /** Sends a request and waits for one reply; NoRespondersError / RequestTimeoutError. */
  request(subject: string, data: Uint8Array, opts: RequestOptions): Promise<CoreMessage>;
  /**
   * A request whose reply may be larger than one bus message (1 MiB on a default nats-server): a replier
   * sends such a reply in parts and they are joined here, whole or not at all (IncompleteReplyError when
   * parts are still missing after `timeoutMs`, which bounds the whole exchange). A replier that sends one
   * message (an earlier release) is read as it is. The memory engine has no message limit.
   */
  requestLarge(subject: string, data: Uint8Array, opts: RequestOptions): Promise<CoreMessage>;
  /**
   * Answers requests on a subject; a thrown error is returned to the requester as RemoteError. A reply
   * larger than one bus message goes in parts to `requestLarge`, and to `request` as a RemoteError naming
   * the limit.
   */
  reply(subject: string, handler: ReplyHandler): Subscription;

  /** Opens (creating when absent) a KV bucket. */
  kv(spec: KvSpec): Promise<Kv>;

  /**
   * The broker's membership as advertised and as reported, with the disagreements between them
   * (`GET /fleet/broker`); parts the broker does not answer are named in the answer, never thrown.
   */
  brokerMembership(): Promise<BrokerMembership>;
  /** Asks the broker to drop a server (raft peer id or server name) from its cluster; a refusal is a result. */
  removeBrokerPeer(peer: string): Promise<PeerRemoval>;

  /**
   * True while the engine reaches its broker (its streams); the in-process engine always does. While
   * false, calls wait (bounded) and followers resume where they were once the link is back.
   */
  linked(): boolean;
  /** Calls `listener` on every change of `linked()`; returns the unsubscribe. */
  onLinkChange(listener: (linked: boolean) => void): () => void;

  /**
   * Writes a consistent copy of the engine's streams and buckets into `dir` (an existing, empty directory
   * this process may write) and lists what it wrote; a restore loads it into a fresh store (ops/backups.md).
   */
  backup(dir: string): Promise<BackupContents>;

  /** Flushes, stops subscriptions and releases the engine. */
  close(): Promise<void>;
}
