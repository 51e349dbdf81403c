/**
 * Streams on JetStream: configuration, publish with de-duplication and expectations, lookups, ordered
 * bounded replay and unbounded follow.
 */
import {
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  type MsgRequest,
  type StreamConfig,
} from '@nats-io/jetstream';
import type {
  FollowOptions,
  PubAck,
  PublishOptions,
  ReplayOptions,
  StoredMessage,
  StreamInfo,
  StreamSpec,
  Subscription,
} from '../bus.js';
import { subjectCompacted } from '../catalogue.js';
import { InvalidNameError, StreamNotFoundError } from '../errors.js';
import { assertName, assertSubject } from '../subject-match.js';
import { fromHeaders, nanos, storedFromGet, storedFromJs } from './codec.js';
import { once, type EngineHost } from './host.js';
import { publishBudgetMs, publishThroughElection, readThroughElection, retryMs } from './election.js';
import { boundedRead, followOrdered } from './reader.js';
import { placementRefused, replicasFor } from './replicas.js';
import { apiCode, ApiCode, translate } from './translate.js';

const defaultDuplicateWindowMs = 120_000;

export function streamConfig(spec: StreamSpec, replicas: number): StreamConfig {
  const maxAge = spec.maxAgeMs ?? 0;
  // The server refuses a duplicate window longer than the stream's max age.
  const window = Math.min(spec.duplicateWindowMs ?? defaultDuplicateWindowMs, maxAge > 0 ? maxAge : Infinity);
  return {
    name: spec.name,
    subjects: [...spec.subjects],
    retention: spec.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(maxAge),
    max_msgs: spec.maxMsgs && spec.maxMsgs > 0 ? spec.maxMsgs : -1,
    duplicate_window: nanos(window),
    num_replicas: replicas,
    allow_direct: true,
  } as StreamConfig;
}

/** True when the stream already has every setting `want` names (subjects in any order). */
export function sameSettings(want: StreamConfig, have: StreamConfig): boolean {
  const subjects = (c: StreamConfig) => [...(c.subjects ?? [])].sort().join(' ');
  return (
    subjects(want) === subjects(have) &&
    want.retention === have.retention &&
    want.storage === have.storage &&
    want.discard === have.discard &&
    want.max_age === have.max_age &&
    want.max_msgs === have.max_msgs &&
    want.duplicate_window === have.duplicate_window &&
    want.num_replicas === have.num_replicas &&
    want.allow_direct === have.allow_direct
  );
}

export class StreamOps {
  constructor(private readonly host: EngineHost) {}

  async ensureStream(spec: StreamSpec): Promise<StreamInfo> {
    this.host.assertOpen();
    assertName('stream', spec.name);
    if (spec.subjects.length === 0) throw new InvalidNameError(`stream ${spec.name} captures no subject`);
    for (const subject of spec.subjects) assertSubject(subject, true);
    const config = streamConfig(spec, this.host.replicas);
    await this.host.ready();
    try {
      const existing = (await this.configOf(spec.name)) ?? (await this.create(config));
      if (existing) {
        // Exists: bring it up to date (the server refuses what cannot change), keeping replicas an
        // operator raised above ours. An unchanged stream gets no write: the server answers even an
        // identical one by placing the replicas again, which it refuses while a server is down.
        config.num_replicas = replicasFor(this.host, spec.name, existing.num_replicas);
        if (!sameSettings(config, existing)) {
          const { name: _name, ...update } = config;
          await this.host.jsm.streams.update(spec.name, update);
        }
      }
    } catch (error) {
      if (apiCode(error) === ApiCode.ClusterNoPeers) throw placementRefused(this.host, spec.name, error);
      throw translate(error, `stream ${spec.name}`);
    }
    return this.infoOfEnsured(spec.name);
  }

  /**
   * The state of a stream that was just created or found. On a cluster a stream created a moment ago can
   * still be "not found" to the server that answers (its group not yet placed there): asked again, briefly.
   */
  private async infoOfEnsured(stream: string): Promise<StreamInfo> {
    const deadline = Date.now() + publishBudgetMs;
    for (;;) {
      try {
        return await this.streamInfo(stream);
      } catch (error) {
        if (!(error instanceof StreamNotFoundError) || Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    }
  }

  /** The stream's configuration, or null when it does not exist. */
  private async configOf(stream: string): Promise<StreamConfig | null> {
    try {
      return (await this.host.jsm.streams.info(stream)).config;
    } catch (error) {
      if (apiCode(error) === ApiCode.StreamNotFound) return null;
      throw error;
    }
  }

  /** Creates the stream: null when created, else (a peer created it first) the configuration it has. */
  private async create(config: StreamConfig): Promise<StreamConfig | null> {
    try {
      await this.host.jsm.streams.add(config);
      return null;
    } catch (error) {
      if (apiCode(error) !== ApiCode.StreamNameInUse) throw error;
      return (await this.host.jsm.streams.info(config.name)).config;
    }
  }

  async streamInfo(stream: string): Promise<StreamInfo> {
    this.host.assertOpen();
    assertName('stream', stream);
    await this.host.ready();
    try {
      const info = await this.host.jsm.streams.info(stream);
      const { first_seq, last_seq, messages } = info.state;
      return {
        name: stream,
        firstSeq: messages === 0 ? last_seq + 1 : first_seq,
        lastSeq: last_seq,
        messages,
      };
    } catch (error) {
      throw translate(error, `stream ${stream}`);
    }
  }

  async publish(subject: string, data: Uint8Array, opts: PublishOptions = {}): Promise<PubAck> {
    this.host.assertOpen();
    assertSubject(subject, false);
    const expect: { lastSequence?: number; lastSubjectSequence?: number } = {};
    if (opts.expectedLastSeq !== undefined) expect.lastSequence = opts.expectedLastSeq;
    if (opts.expectedLastSubjectSeq !== undefined) expect.lastSubjectSequence = opts.expectedLastSubjectSeq;
    const headers = fromHeaders(opts.headers);
    await this.host.ready();
    try {
      const ack = await publishThroughElection(this.host, subject, data, {
        ...(opts.msgId !== undefined ? { msgID: opts.msgId } : {}),
        ...(headers ? { headers } : {}),
        expect,
      });
      return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
    } catch (error) {
      throw translate(error, `publish to ${subject}`, {
        publish: true,
        expected: opts.expectedLastSubjectSeq ?? opts.expectedLastSeq ?? -1,
      });
    }
  }

  async purgeBelow(stream: string, seq: number, subject?: string): Promise<number> {
    this.host.assertOpen();
    assertName('stream', stream);
    if (subject !== undefined) assertSubject(subject, true);
    await this.host.ready();
    if (!Number.isInteger(seq) || seq <= 1) return 0;
    try {
      // `seq` purges every message below it and keeps the rest (the server's own "up to, not including").
      const opts = subject === undefined ? { seq } : { seq, filter: subject };
      return (await this.host.jsm.streams.purge(stream, opts)).purged;
    } catch (error) {
      throw translate(error, `stream ${stream}`);
    }
  }

  async deleteStream(stream: string): Promise<boolean> {
    this.host.assertOpen();
    assertName('stream', stream);
    await this.host.ready();
    try {
      return await this.host.jsm.streams.delete(stream);
    } catch (error) {
      const translated = translate(error, `stream ${stream}`);
      if (translated instanceof StreamNotFoundError) return false;
      throw translated;
    }
  }

  async getMessage(stream: string, seq: number): Promise<StoredMessage | null> {
    this.host.assertOpen();
    assertName('stream', stream);
    if (!Number.isInteger(seq) || seq < 1) return null;
    await this.host.ready();
    try {
      const msg = await readThroughElection(this.host, (jsm) => jsm.streams.getMessage(stream, { seq }));
      return msg ? storedFromGet(stream, msg) : null;
    } catch (error) {
      throw translate(error, `stream ${stream}`);
    }
  }

  async lastMessage(stream: string, subject: string): Promise<StoredMessage | null> {
    this.host.assertOpen();
    assertName('stream', stream);
    assertSubject(subject, false);
    await this.host.ready();
    try {
      const msg = await readThroughElection(this.host, (jsm) =>
        jsm.streams.getMessage(stream, { last_by_subj: subject }),
      );
      return msg ? storedFromGet(stream, msg) : null;
    } catch (error) {
      throw translate(error, `stream ${stream}`);
    }
  }

  async nextMessage(stream: string, subject: string, fromSeq: number): Promise<StoredMessage | null> {
    this.host.assertOpen();
    assertName('stream', stream);
    assertSubject(subject, false);
    await this.host.ready();
    // STREAM.MSG.GET takes `next_by_subj` (nats-server 2.9+); the client's type lists only seq and last.
    const query = { seq: Math.max(1, Math.floor(fromSeq)), next_by_subj: subject } as unknown as MsgRequest;
    try {
      const msg = await readThroughElection(this.host, (jsm) => jsm.streams.getMessage(stream, query));
      return msg ? storedFromGet(stream, msg) : null;
    } catch (error) {
      throw translate(error, `stream ${stream}`);
    }
  }

  async *replay(stream: string, opts: ReplayOptions = {}): AsyncGenerator<StoredMessage> {
    if (opts.subject !== undefined) assertSubject(opts.subject, true);
    const info = await this.streamInfo(stream);
    const toSeq = Math.min(opts.toSeq ?? info.lastSeq, info.lastSeq);
    const fromSeq = Math.max(1, opts.fromSeq ?? 1);
    if (info.messages === 0 || fromSeq > toSeq) return;
    const read = boundedRead(this.host, stream, {
      ...(opts.subject !== undefined ? { filter: opts.subject } : {}),
      verifyGaps: verifyGaps(stream, opts.subject),
      ...(opts.since ? { since: opts.since } : {}),
      fromSeq,
      toSeq,
    });
    for await (const msg of read) yield storedFromJs(stream, msg);
  }

  async follow(
    stream: string,
    opts: FollowOptions,
    onMessage: (msg: StoredMessage) => void,
  ): Promise<Subscription> {
    this.host.assertOpen();
    if (opts.subject !== undefined) assertSubject(opts.subject, true);
    await this.streamInfo(stream);
    const fromSeq = Math.max(1, opts.fromSeq ?? 1);
    // Supervised: resumes after the last message delivered when the server behind it is lost.
    const read = await followOrdered(
      this.host,
      stream,
      {
        ...(opts.subject !== undefined ? { filter: opts.subject } : {}),
        ...(opts.since ? { since: opts.since } : {}),
        fromSeq,
        verifyGaps: verifyGaps(stream, opts.subject),
      },
      (msg) => onMessage(storedFromJs(stream, msg)),
    );
    return this.host.track({ stop: once(() => read.stop()) });
  }
}

/**
 * A read checks the gaps in what it is given when they are few (the whole stream: only removals make them)
 * or when a purge by subject could make a consumer pass over what it should read (reader.ts).
 */
const verifyGaps = (stream: string, subject: string | undefined): boolean =>
  subject === undefined || subject === '>' || subjectCompacted.has(stream);
