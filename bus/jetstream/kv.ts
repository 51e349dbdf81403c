/**
 * KV buckets on JetStream with log-order arbitration (kv-rule.ts). The bucket is a regular NATS KV
 * (`KV_<bucket>` over `$KV.<bucket>.>`, created with @nats-io/kv), but every conditional write carries
 * the revision it claims as parent and confirms its win by reading the key's records back after its
 * publish is acknowledged. The server's expected-last-subject-sequence check stays on as a fast path.
 */
import { randomUUID } from 'node:crypto';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import type { Kv, KvEntry, KvSpec } from '../bus.js';
import { BusError, InvalidNameError, KvConflictError, WrongLastSequenceError } from '../errors.js';
import { assertName, assertSubject } from '../subject-match.js';
import { nanos } from './codec.js';
import type { EngineHost } from './host.js';
import {
  KeyStates,
  operationHeader,
  parentHeader,
  storedKeys,
  toEntry,
  type BucketLayout,
} from './kv-records.js';
import { judge, live, parentAt, revisionAt, type KeyState, type Walk } from './kv-rule.js';
import { watchBucket } from './kv-watch.js';
import { publishBudgetMs, publishThroughElection, retryMs } from './election.js';
import { placementRefused, replicasFor } from './replicas.js';
import { apiCode, ApiCode, translate } from './translate.js';

const KEY = /^[-/_=.a-zA-Z0-9]+$/;
const defaultHistory = 64;
/** Rounds of read → publish when the fast-path check keeps refusing (another writer's record landed). */
const maxAttempts = 8;
/** How long a writer looks for its own acknowledged record (a stream leader change can delay it). */
const confirmDeadlineMs = 5_000;

export function assertKey(key: string): void {
  if (!KEY.test(key) || key.startsWith('.') || key.endsWith('.') || key.includes('..')) {
    throw new InvalidNameError(`invalid key "${key}": use letters, digits and - / _ = . (no empty tokens)`);
  }
}

/** Creates the bucket when absent (history, TTL, replicas) and opens it. */
export async function openJetStreamKv(host: EngineHost, spec: KvSpec): Promise<Kv> {
  host.assertOpen();
  assertName('bucket', spec.name);
  const history = spec.history ?? defaultHistory;
  const stream = `KV_${spec.name}`;
  const maxAge = nanos(spec.ttlMs ?? 0);
  await host.ready();
  // On a cluster a bucket created a moment ago can still be "not found" to the server that answers (its
  // group not yet placed there): the whole step, safe to repeat, is tried again, briefly.
  const deadline = Date.now() + publishBudgetMs;
  for (;;) {
    try {
      await ensureBucket(host, spec, stream, history, maxAge);
      break;
    } catch (error) {
      if (apiCode(error) === ApiCode.StreamNotFound && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, retryMs));
        continue;
      }
      if (apiCode(error) === ApiCode.ClusterNoPeers) throw placementRefused(host, stream, error);
      throw translate(error, `kv bucket ${spec.name}`);
    }
  }
  return new JetStreamKv(host, {
    bucket: spec.name,
    stream,
    prefix: `$KV.${spec.name}.`,
    ttlMs: spec.ttlMs,
    history,
  });
}

/** Creates the bucket, or brings an existing one's history, TTL and replicas up to the spec. */
async function ensureBucket(
  host: EngineHost,
  spec: KvSpec,
  stream: string,
  history: number,
  maxAge: number,
): Promise<void> {
  await new Kvm(host.js).create(spec.name, {
    history,
    replicas: host.replicas,
    ...(spec.ttlMs ? { ttl: spec.ttlMs } : {}),
  });
  // An existing bucket keeps its settings through create(): bring history and TTL up to the spec,
  // since every reader's arbitration depends on them, and replicas up to ours (never down).
  const { config } = await host.jsm.streams.info(stream);
  const replicas = replicasFor(host, stream, config.num_replicas);
  if (
    config.max_msgs_per_subject !== history ||
    config.max_age !== maxAge ||
    config.num_replicas !== replicas
  ) {
    await host.jsm.streams.update(stream, {
      max_msgs_per_subject: history,
      max_age: maxAge,
      duplicate_window: Math.min(config.duplicate_window, maxAge > 0 ? maxAge : Infinity),
      num_replicas: replicas,
    });
  }
}

class JetStreamKv implements Kv {
  readonly name: string;
  private readonly states: KeyStates;

  constructor(
    private readonly host: EngineHost,
    private readonly layout: BucketLayout,
  ) {
    this.name = layout.bucket;
    this.states = new KeyStates(host, layout);
  }

  async get(key: string): Promise<KvEntry | null> {
    this.host.assertOpen();
    assertKey(key);
    const current = live(await this.states.current(key), this.layout.ttlMs, Date.now());
    return current ? toEntry(this.name, current) : null;
  }

  async put(key: string, value: Uint8Array): Promise<number> {
    this.host.assertOpen();
    assertKey(key);
    return this.write(key, value, null, 'put');
  }

  create(key: string, value: Uint8Array): Promise<number> {
    return this.conditional(key, value, 0, 'put');
  }

  update(key: string, value: Uint8Array, expectedRevision: number): Promise<number> {
    return this.conditional(key, value, expectedRevision, 'put');
  }

  async delete(key: string, opts?: { expectedRevision?: number }): Promise<void> {
    this.host.assertOpen();
    assertKey(key);
    if (opts?.expectedRevision !== undefined) {
      await this.conditional(key, new Uint8Array(0), opts.expectedRevision, 'delete');
      return;
    }
    const state = await this.states.current(key);
    if (live(state, this.layout.ttlMs, Date.now())) await this.write(key, new Uint8Array(0), null, 'delete');
  }

  async keys(filter?: string): Promise<string[]> {
    this.host.assertOpen();
    if (filter !== undefined) assertSubject(filter, true);
    const keys = await storedKeys(this.host, this.layout, `${this.layout.prefix}${filter ?? '>'}`);
    const now = Date.now();
    const present: string[] = [];
    // Judged in parallel chunks: one round trip per key when its state is cached.
    for (let i = 0; i < keys.length; i += 64) {
      const chunk = keys.slice(i, i + 64);
      const states = await Promise.all(chunk.map((key) => this.states.current(key)));
      states.forEach((state, j) => {
        if (live(state, this.layout.ttlMs, now)) present.push(chunk[j] as string);
      });
    }
    return present.sort();
  }

  async history(key: string): Promise<KvEntry[]> {
    this.host.assertOpen();
    assertKey(key);
    const records = await this.states.records(key, 1);
    const { verdicts } = judge(records, this.layout.ttlMs);
    return records.filter((r) => verdicts.get(r.seq)?.valid).map((r) => toEntry(this.name, r));
  }

  watch(onEntry: (entry: KvEntry) => void, opts?: { key?: string; initial?: boolean }) {
    this.host.assertOpen();
    return watchBucket(this.host, this.layout, this.states, onEntry, opts ?? {});
  }

  /**
   * Publishes one record; without `claim` it is unconditional. Its message id lets a publish whose answer
   * was lost (a stream leader killed mid-request) be sent again: a repeat inside the bucket's duplicate
   * window is acknowledged with the first one's sequence, even when a claim's expectation no longer holds.
   */
  private async write(
    key: string,
    value: Uint8Array,
    claim: { parent: number; lastSeq: number } | null,
    operation: 'put' | 'delete',
  ): Promise<number> {
    const hdrs = natsHeaders();
    if (claim) {
      hdrs.set(parentHeader, String(claim.parent));
    }
    if (operation === 'delete') hdrs.set(operationHeader, 'DEL');
    const subject = `${this.layout.prefix}${key}`;
    await this.host.ready();
    try {
      const ack = await publishThroughElection(this.host, subject, value, {
        msgID: randomUUID(),
        headers: hdrs,
        ...(claim ? { expect: { lastSubjectSequence: claim.lastSeq } } : {}),
      });
      return ack.seq;
    } catch (error) {
      throw translate(error, `kv ${this.name}/${key}`, {
        publish: true,
        expected: claim?.lastSeq ?? -1,
      });
    }
  }

  /**
   * create / update / conditional delete: read, claim the current valid record as parent, publish,
   * then confirm the win by reading the key back through our record.
   */
  private async conditional(
    key: string,
    value: Uint8Array,
    expectedRevision: number,
    operation: 'put' | 'delete',
  ): Promise<number> {
    this.host.assertOpen();
    assertKey(key);
    let current = 0;
    for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
      // 1. the key's state as of now; refuse at once when the live revision is not the expected one
      const state = await this.states.current(key);
      const now = Date.now();
      current = revisionAt(state, this.layout.ttlMs, now);
      if (current !== expectedRevision) throw new KvConflictError(this.name, key, expectedRevision, current);
      if (operation === 'delete' && expectedRevision === 0) return 0;
      // 2. publish the claim; the server refuses it when any record landed since we read (fast path)
      const claim = { parent: parentAt(state, this.layout.ttlMs, now), lastSeq: state.last };
      let seq: number;
      try {
        seq = await this.write(key, value, claim, operation);
      } catch (error) {
        if (error instanceof WrongLastSequenceError) continue;
        throw error;
      }
      // 3. the first claimant of the parent wins; a loser whose expectation still holds tries again
      const walk = await this.confirm(key, state, seq);
      if (walk.verdicts.get(seq)?.valid) return seq;
      current = revisionAt(walk.state, this.layout.ttlMs, Date.now());
      if (current !== expectedRevision) throw new KvConflictError(this.name, key, expectedRevision, current);
    }
    throw new KvConflictError(this.name, key, expectedRevision, current);
  }

  /** Walks the key through `seq` (our acknowledged record), waiting briefly if it is not readable yet. */
  private async confirm(key: string, base: KeyState, seq: number): Promise<Walk> {
    const deadline = Date.now() + confirmDeadlineMs;
    for (;;) {
      const walk = await this.states.advance(key, base, seq);
      if (walk.verdicts.has(seq)) return walk;
      if (Date.now() > deadline) {
        throw new BusError(
          `kv ${this.name}/${key}: acknowledged record ${seq} could not be read back to confirm it`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
