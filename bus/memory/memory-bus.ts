/**
 * The memory engine (`providers.queue.type: memory`): the whole bus in this process, persisted in
 * SQLite under `stream.store_dir` (pure memory when unset). Writes queue up and commit together once
 * per tick (group commit); a publish resolves only after its commit, so an acknowledged message
 * survives SIGKILL.
 */
import { pino, type Logger } from 'pino';
import type {
  Bus,
  ConsumeHandler,
  ConsumerSpec,
  CoreMessage,
  FollowOptions,
  Headers,
  Kv,
  KvSpec,
  PubAck,
  PublishOptions,
  ReplayOptions,
  ReplyHandler,
  RequestOptions,
  StoredMessage,
  StreamInfo,
  StreamSpec,
  Subscription,
} from '../bus.js';
import type { BackupContents } from '../../schema/index.js';
import type { BrokerMembership, PeerRemoval } from '../../schema/index.js';
import { BusClosedError } from '../errors.js';
import { localMembership } from '../membership.js';
import { assertSubject } from '../subject-match.js';
import { backupMemoryStore } from './backup.js';
import { DurableConsumer, refuseSecond, savedAckFloor, savedPending } from './consumers.js';
import { GroupCommit } from './group-commit.js';
import { CoreRouter } from './core.js';
import { openKv } from './kv.js';
import { settle } from './settle.js';
import { openStore, type OpenedStore } from './store.js';
import { StreamReaders } from './readers.js';
import { StreamStore } from './streams.js';

export interface MemoryBusOptions {
  /** Directory of the SQLite store; unset = pure memory (nothing survives the process). */
  readonly storeDir?: string;
  readonly logger?: Logger;
  /** Refuse a `storeDir` that holds no store instead of creating one (see OpenBusOptions). */
  readonly existingStore?: boolean;
  /**
   * Wall clock in ms for stored time: message times, max age, KV TTL. Tests move it to age records
   * without waiting; redelivery timers stay on real time. Default `Date.now`.
   */
  readonly clock?: () => number;
}

const emptyHeaders: Headers = Object.freeze({});

const limitSweepMs = 1_000;

class MemoryBus implements Bus {
  readonly engine = 'memory' as const;
  private closed = false;
  private closing: Promise<void> | null = null;
  private readonly commits: GroupCommit;
  private readonly readers: StreamReaders;
  private readonly consumers = new Map<string, DurableConsumer>();
  private readonly core: CoreRouter;
  private readonly streams: StreamStore;
  private readonly sweeper: NodeJS.Timeout;
  /** Appended messages of the current batch, announced after its commit. */
  private announced: Array<{ subject: string; data: Uint8Array; headers: Headers }> = [];
  /** Streams written by the batch being committed, with the subjects written to each. */
  private readonly touched = new Map<string, Set<string>>();

  constructor(
    private readonly store: OpenedStore,
    private readonly logger: Logger,
    private readonly clock: () => number,
  ) {
    this.streams = new StreamStore(store.db);
    this.readers = new StreamReaders(this.streams, logger, () => this.closed);
    this.commits = new GroupCommit(store.db, logger, clock, {
      beforeCommit: () => this.streams.saveSequences(),
      committed: () => this.announce(),
      // Nothing of the batch is stored: rebuild the cache from the database.
      failed: () => {
        this.streams.load();
        this.announced = [];
        this.touched.clear();
      },
    });
    this.core = new CoreRouter(logger);
    this.sweeper = setInterval(() => this.sweep(), limitSweepMs);
    this.sweeper.unref();
  }

  assertOpen(): void {
    if (this.closed) throw new BusClosedError('the bus is closed');
  }

  // ------------------------------------------------------------ commit queue

  /** Runs `work` inside the next group commit; resolves with its result once committed. */
  commit<T>(work: (now: number) => T): Promise<T> {
    return this.commits.commit(work);
  }

  /** Like `commit` without waiting (acks: a lost one only redelivers). */
  enqueue(work: () => void): void {
    this.commits.enqueue(work);
  }

  /** After a commit: core subscribers, followers and consumers of the touched streams. */
  private announce(): void {
    const announced = this.announced;
    this.announced = [];
    for (const m of announced) this.core.deliver(m.subject, m.data, m.headers);
    const touched = [...this.touched];
    this.touched.clear();
    for (const [stream, subjects] of touched) {
      this.readers.wake(stream);
      // Only consumers whose filter takes one of the new subjects: a thousand seat inboxes share
      // one stream, and waking each of them to read past a message for another was most of a wake.
      for (const consumer of this.consumers.values())
        if (consumer.stream === stream && consumer.wants(subjects)) consumer.wake();
    }
  }

  private sweep(): void {
    if (this.closed) return;
    this.enqueue(() => {
      const now = this.clock();
      for (const name of this.streams.streams.keys()) {
        this.streams.enforceLimits(name, now);
        this.streams.pruneDedup(name, now);
      }
    });
  }

  // ------------------------------------------------------------ streams

  ensureStream(spec: StreamSpec): Promise<StreamInfo> {
    return this.commit((now) => this.streams.ensure(spec, now));
  }

  streamInfo(stream: string): Promise<StreamInfo> {
    return settle(() => {
      this.assertOpen();
      return this.streams.info(stream);
    });
  }

  async publish(subject: string, data: Uint8Array, opts?: PublishOptions): Promise<PubAck> {
    assertSubject(subject, false);
    return this.commit((now) => this.append(subject, data, opts, now));
  }

  /** Appends inside the running transaction and remembers what to announce after the commit. */
  append(subject: string, data: Uint8Array, opts: PublishOptions | undefined, now: number): PubAck {
    const ack = this.streams.append(subject, data, opts, now);
    if (!ack.duplicate) {
      this.announced.push({ subject, data, headers: opts?.headers ?? emptyHeaders });
      const subjects = this.touched.get(ack.stream);
      if (subjects) subjects.add(subject);
      else this.touched.set(ack.stream, new Set([subject]));
    }
    return ack;
  }

  purgeBelow(stream: string, seq: number, subject?: string): Promise<number> {
    if (subject !== undefined) assertSubject(subject, true);
    return this.commit(() => this.streams.purgeBelow(stream, seq, subject));
  }

  deleteStream(stream: string): Promise<boolean> {
    return this.commit(() => this.streams.drop(stream));
  }

  getMessage(stream: string, seq: number): Promise<StoredMessage | null> {
    return settle(() => {
      this.assertOpen();
      return this.streams.getMessage(stream, seq);
    });
  }

  lastMessage(stream: string, subject: string): Promise<StoredMessage | null> {
    return settle(() => {
      this.assertOpen();
      assertSubject(subject, false);
      return this.streams.lastMessage(stream, subject);
    });
  }

  nextMessage(stream: string, subject: string, fromSeq: number): Promise<StoredMessage | null> {
    return settle(() => {
      this.assertOpen();
      assertSubject(subject, false);
      return this.streams.nextMessage(stream, subject, fromSeq);
    });
  }

  replay(stream: string, opts: ReplayOptions = {}): AsyncIterable<StoredMessage> {
    // The reader checks the bus is open when iteration starts, as a generator of its own would.
    return this.readers.replay(stream, opts);
  }

  follow(
    stream: string,
    opts: FollowOptions,
    onMessage: (msg: StoredMessage) => void,
  ): Promise<Subscription> {
    return settle(() => {
      this.assertOpen();
      return this.readers.follow(stream, opts, onMessage);
    });
  }

  consume(stream: string, spec: ConsumerSpec, handler: ConsumeHandler): Promise<Subscription> {
    return settle(() => this.startConsumer(stream, spec, handler));
  }

  consumerPending(stream: string, durable: string): Promise<number | null> {
    return settle(() => {
      this.assertOpen();
      const live = this.consumers.get(`${stream}/${durable}`);
      if (live) return live.pending();
      const info = this.streams.info(stream);
      return savedPending(this.store.db, stream, durable, info.lastSeq);
    });
  }

  consumerAckFloor(stream: string, durable: string): Promise<number | null> {
    return settle(() => {
      this.assertOpen();
      const live = this.consumers.get(`${stream}/${durable}`);
      return live ? live.ackFloor() : savedAckFloor(this.store.db, stream, durable);
    });
  }

  private startConsumer(stream: string, spec: ConsumerSpec, handler: ConsumeHandler): Subscription {
    this.assertOpen();
    refuseSecond(this.consumers, stream, spec.durable);
    const key = `${stream}/${spec.durable}`;
    const consumer = new DurableConsumer(
      {
        db: this.store.db,
        streams: this.streams,
        logger: this.logger,
        enqueue: (work) => this.enqueue(work),
        committed: () => this.commits.barrier(),
      },
      stream,
      spec,
      handler,
    );
    this.consumers.set(key, consumer);
    return {
      stop: async () => {
        this.consumers.delete(key);
        await consumer.stop();
      },
    };
  }

  // ------------------------------------------------------------ core

  emit(subject: string, data: Uint8Array, headers?: Headers): void {
    this.assertOpen();
    assertSubject(subject, false);
    this.core.deliver(subject, data, headers ?? emptyHeaders);
  }

  listened(subject: string): boolean {
    this.assertOpen();
    assertSubject(subject, false);
    return this.core.reaches(subject).length > 0;
  }

  subscribe(subject: string, onMessage: (msg: CoreMessage) => void): Subscription {
    this.assertOpen();
    assertSubject(subject, true);
    return this.core.subscribe(subject, onMessage);
  }

  async request(subject: string, data: Uint8Array, opts: RequestOptions): Promise<CoreMessage> {
    this.assertOpen();
    assertSubject(subject, false);
    return this.core.request(subject, data, opts);
  }

  /** Replies are never split here: an in-process message has no size limit. */
  requestLarge(subject: string, data: Uint8Array, opts: RequestOptions): Promise<CoreMessage> {
    return this.request(subject, data, opts);
  }

  reply(subject: string, handler: ReplyHandler): Subscription {
    this.assertOpen();
    assertSubject(subject, true);
    return this.core.reply(subject, handler);
  }

  // ------------------------------------------------------------ kv

  async kv(spec: KvSpec): Promise<Kv> {
    return this.commit((now) =>
      openKv(
        {
          streams: this.streams,
          commit: (work) => this.commit(work),
          follow: (stream, fromSeq, onMessage) => this.follow(stream, { fromSeq }, onMessage),
          assertOpen: () => this.assertOpen(),
          append: (subject, data, opts, now) => this.append(subject, data, opts, now),
          now: this.clock,
        },
        spec,
        now,
      ),
    );
  }

  // ------------------------------------------------------------ broker

  /** The in-process engine is the whole broker: one local member, nothing to remove. */
  brokerMembership(): Promise<BrokerMembership> {
    this.assertOpen();
    return Promise.resolve(localMembership());
  }

  removeBrokerPeer(peer: string): Promise<PeerRemoval> {
    this.assertOpen();
    return Promise.resolve({
      removed: false,
      reason: peer === 'local' ? 'refused' : 'unknown_peer',
      detail:
        peer === 'local'
          ? 'the memory engine runs inside this node: its one member cannot be removed'
          : `${peer} is not a member: the memory engine has one member, local`,
    });
  }

  // ------------------------------------------------------------ backup

  async backup(dir: string): Promise<BackupContents> {
    this.assertOpen();
    return backupMemoryStore(this.store.db, dir);
  }

  // ------------------------------------------------------------ link

  /** The in-process engine is its own broker: linked for as long as it is open. */
  linked(): boolean {
    return !this.closed;
  }

  onLinkChange(_listener: (linked: boolean) => void): () => void {
    return () => undefined;
  }

  close(): Promise<void> {
    // Every caller waits for the one shutdown.
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    clearInterval(this.sweeper);
    // Let queued writes commit, then stop consumers (they may still ack) and release the store.
    await this.commits.barrier();
    await Promise.all([...this.consumers.values()].map((c) => c.stop()));
    this.consumers.clear();
    this.commits.close();
    this.closed = true;
    this.readers.clear();
    this.core.clear();
    this.store.release();
  }
}

/** Opens the memory engine; a store another process holds, or a corrupt one, is refused by name. */
export async function openMemoryBus(opts: MemoryBusOptions = {}): Promise<Bus> {
  const logger = opts.logger ?? pino({ level: 'silent' });
  // Deferred a tick so a refused store arrives as a rejection, never as a synchronous throw.
  await Promise.resolve();
  return new MemoryBus(
    openStore(opts.storeDir, { existing: opts.existingStore === true }),
    logger,
    opts.clock ?? Date.now,
  );
}
