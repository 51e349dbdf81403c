/**
 * The JetStream engine (`providers.queue.type: jetstream`): the Bus on a NATS server or cluster.
 * Streams and buckets are created with `replicas` copies (3 on a 3-node cluster); contended KV writes
 * are decided by log order (kv-rule.ts), not by the server's compare-and-set.
 */
import { jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { pino, type Logger } from 'pino';
import { z } from 'zod';
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
import type { BackupContents, BackupFile } from '../../schema/index.js';
import type { BrokerMembership, PeerRemoval } from '../../schema/index.js';
import type { UndoRestore } from '../backup-files.js';
import { BusClosedError, EngineUnavailableError } from '../errors.js';
import { assertSubject } from '../subject-match.js';
import { backupJetStream } from './backup.js';
import { restoreJetStreamExport } from './backup-restore.js';
import { connectNats, redactUrl, type NatsLink } from './connection.js';
import { ConsumerOps } from './consumers.js';
import { CoreOps } from './core.js';
import type { EngineHost } from './host.js';
import { openJetStreamKv } from './kv.js';
import { readMembership, removePeer, type MembershipMemory } from './membership.js';
import { checkClusterSize } from './replicas.js';
import { StreamOps } from './streams.js';
import { translate } from './translate.js';

export const JetStreamBusOptions = z.object({
  /** `nats://host:port`, or several separated by commas. */
  url: z.string().min(1),
  authToken: z.string().min(1).optional(),
  /** Copies of every stream and bucket this engine creates. Default 1. */
  replicas: z.number().int().min(1).max(5).default(1),
  /** Client name shown by the server's monitoring. */
  name: z.string().min(1).optional(),
});
export type JetStreamBusOptions = z.input<typeof JetStreamBusOptions> & { readonly logger?: Logger };

/** How long an API call or a publish waits for the server before failing. */
const apiTimeoutMs = 10_000;
/** How long `close()` lets the connection drain before cutting it. */
const closeDeadlineMs = 5_000;

/** What `openBus` adds for the embedded engine: its name, and stopping the server after the bus. */
export interface EngineWrapping {
  readonly engine?: 'jetstream' | 'jetstream-embedded';
  readonly onClose?: () => Promise<void>;
}

class JetStreamBus implements Bus, EngineHost {
  readonly js: JetStreamClient;
  private closed = false;
  private readonly live = new Set<Subscription>();
  /** The last broker report whose streams were listed (`GET /fleet/broker` names its servers while none can be). */
  private readonly membership: MembershipMemory = { last: null };
  private readonly streams: StreamOps;
  private readonly core: CoreOps;
  private readonly consumers: ConsumerOps;

  readonly nc: NatsConnection;

  constructor(
    private readonly link: NatsLink,
    readonly jsm: JetStreamManager,
    readonly replicas: number,
    readonly logger: Logger,
    readonly engine: 'jetstream' | 'jetstream-embedded',
    private readonly onClose: () => Promise<void>,
  ) {
    this.nc = link.nc;
    this.js = jsm.jetstream();
    this.streams = new StreamOps(this);
    this.core = new CoreOps(this);
    this.consumers = new ConsumerOps(this);
  }

  assertOpen(): void {
    if (this.closed) throw new BusClosedError('the bus is closed');
  }

  ready(): Promise<void> {
    return this.link.ready(apiTimeoutMs);
  }

  linked(): boolean {
    return !this.closed && this.link.linked();
  }

  onLinkChange(listener: (linked: boolean) => void): () => void {
    return this.link.onLinkChange(listener);
  }

  track(sub: Subscription): Subscription {
    const tracked: Subscription = {
      stop: async () => {
        this.live.delete(tracked);
        await sub.stop();
      },
    };
    this.live.add(tracked);
    return tracked;
  }

  ensureStream(spec: StreamSpec): Promise<StreamInfo> {
    return this.streams.ensureStream(spec);
  }

  streamInfo(stream: string): Promise<StreamInfo> {
    return this.streams.streamInfo(stream);
  }

  publish(subject: string, data: Uint8Array, opts?: PublishOptions): Promise<PubAck> {
    return this.streams.publish(subject, data, opts);
  }

  purgeBelow(stream: string, seq: number, subject?: string): Promise<number> {
    return this.streams.purgeBelow(stream, seq, subject);
  }

  deleteStream(stream: string): Promise<boolean> {
    return this.streams.deleteStream(stream);
  }

  getMessage(stream: string, seq: number): Promise<StoredMessage | null> {
    return this.streams.getMessage(stream, seq);
  }

  lastMessage(stream: string, subject: string): Promise<StoredMessage | null> {
    return this.streams.lastMessage(stream, subject);
  }

  nextMessage(stream: string, subject: string, fromSeq: number): Promise<StoredMessage | null> {
    return this.streams.nextMessage(stream, subject, fromSeq);
  }

  replay(stream: string, opts?: ReplayOptions): AsyncIterable<StoredMessage> {
    this.assertOpen();
    return this.streams.replay(stream, opts);
  }

  follow(
    stream: string,
    opts: FollowOptions,
    onMessage: (msg: StoredMessage) => void,
  ): Promise<Subscription> {
    return this.streams.follow(stream, opts, onMessage);
  }

  consume(stream: string, spec: ConsumerSpec, handler: ConsumeHandler): Promise<Subscription> {
    return this.consumers.consume(stream, spec, handler);
  }

  consumerPending(stream: string, durable: string): Promise<number | null> {
    return this.consumers.pending(stream, durable);
  }

  consumerAckFloor(stream: string, durable: string): Promise<number | null> {
    return this.consumers.ackFloor(stream, durable);
  }

  emit(subject: string, data: Uint8Array, headers?: Headers): void {
    this.core.emit(subject, data, headers);
  }

  /** Any process on the server may subscribe: an emit may always be heard. */
  listened(subject: string): boolean {
    assertSubject(subject, false);
    return true;
  }

  subscribe(subject: string, onMessage: (msg: CoreMessage) => void): Subscription {
    return this.core.subscribe(subject, onMessage);
  }

  request(subject: string, data: Uint8Array, opts: RequestOptions): Promise<CoreMessage> {
    return this.core.request(subject, data, opts);
  }

  requestLarge(subject: string, data: Uint8Array, opts: RequestOptions): Promise<CoreMessage> {
    return this.core.requestLarge(subject, data, opts);
  }

  reply(subject: string, handler: ReplyHandler): Subscription {
    return this.core.reply(subject, handler);
  }

  kv(spec: KvSpec): Promise<Kv> {
    return openJetStreamKv(this, spec);
  }

  brokerMembership(): Promise<BrokerMembership> {
    return readMembership(this, this.engine, this.membership);
  }

  removeBrokerPeer(peer: string): Promise<PeerRemoval> {
    return removePeer(this, peer);
  }

  backup(dir: string): Promise<BackupContents> {
    return backupJetStream(this, this, dir);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Stop consumers and repliers first (they may still ack or answer), then flush and disconnect.
    await Promise.allSettled([...this.live].map((sub) => sub.stop()));
    // Drain flushes what is queued; a server that is gone must not hold the close up.
    const drained = this.nc.drain().then(
      () => true,
      () => false,
    );
    const timer = new Promise<boolean>((resolve) =>
      setTimeout(() => resolve(false), closeDeadlineMs).unref(),
    );
    if (!(await Promise.race([drained, timer]))) await this.nc.close().catch(() => undefined);
    await this.onClose();
  }
}

/**
 * Connects to the NATS server at `url` and checks that JetStream answers and that the cluster has a
 * server for each of `replicas` copies. An unreachable server fails within a few seconds, and a cluster
 * too small is refused, with EngineUnavailableError naming the url.
 */
export async function openJetStreamBus(
  options: JetStreamBusOptions,
  wrapping: EngineWrapping = {},
): Promise<Bus> {
  const parsed = JetStreamBusOptions.safeParse(options);
  if (!parsed.success) {
    throw new EngineUnavailableError(
      `jetstream engine: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  const opts = parsed.data;
  const logger = options.logger ?? pino({ level: 'silent' });
  const link = await connectNats({
    url: opts.url,
    ...(opts.authToken ? { authToken: opts.authToken } : {}),
    ...(opts.name ? { name: opts.name } : {}),
    logger,
  });
  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(link.nc, { timeout: apiTimeoutMs });
  } catch (error) {
    await link.nc.close().catch(() => undefined);
    throw new EngineUnavailableError(
      `JetStream is not available at ${redactUrl(opts.url)} (is the server started with -js?)`,
      { cause: error },
    );
  }
  try {
    await checkClusterSize({ nc: link.nc, jsm, logger, shownUrl: redactUrl(opts.url) }, opts.replicas);
  } catch (error) {
    await link.nc.close().catch(() => undefined);
    throw translate(error, `replica check at ${redactUrl(opts.url)}`);
  }
  logger.info(
    { url: redactUrl(opts.url), replicas: opts.replicas, server: link.nc.info?.version },
    'bus: jetstream engine connected',
  );
  return new JetStreamBus(
    link,
    jsm,
    opts.replicas,
    logger,
    wrapping.engine ?? 'jetstream',
    wrapping.onClose ?? (() => Promise.resolve()),
  );
}

/** Loads a JetStream export into the server `bus` is connected to (bus/restore.ts); resolves with its undo. */
export function restoreJetStream(bus: Bus, from: string, files: readonly BackupFile[]): Promise<UndoRestore> {
  if (!(bus instanceof JetStreamBus))
    return Promise.reject(new EngineUnavailableError('not a JetStream bus'));
  return restoreJetStreamExport(bus, from, files);
}
