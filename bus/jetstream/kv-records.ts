/**
 * Reading one key's records with their headers, and the judged state of each key. Reads go through
 * the stream's MSG.GET API, which the stream leader answers: it holds every acknowledged record, so a
 * writer that was acked always finds its own record (direct get may answer from a lagging replica).
 * Judged states are cached per key; a read that finds new records continues the walk from the cached
 * state instead of re-reading the whole history.
 */
import type { MsgRequest, StoredMsg } from '@nats-io/jetstream';
import type { KvEntry } from '../bus.js';
import {
  continueWalk,
  emptyState,
  judge,
  settledBy,
  type KeyState,
  type KvRecord,
  type Walk,
} from './kv-rule.js';
import { readThroughElection } from './election.js';
import type { EngineHost } from './host.js';
import { translate } from './translate.js';

export const parentHeader = 'Svc-Kv-Parent';
export const operationHeader = 'KV-Operation';

const cacheLimit = 10_000;

export interface BucketLayout {
  readonly bucket: string;
  readonly stream: string;
  /** `$KV.<bucket>.` */
  readonly prefix: string;
  readonly ttlMs: number | undefined;
  readonly history: number;
}

export function toRecord(
  prefix: string,
  msg: {
    subject: string;
    seq: number;
    time: Date;
    data: Uint8Array;
    headers?: { get(k: string): string; has(k: string): boolean } | undefined;
  },
): KvRecord {
  const op = msg.headers?.has(operationHeader) ? msg.headers.get(operationHeader) : '';
  const parent = msg.headers?.has(parentHeader) ? Number(msg.headers.get(parentHeader)) : NaN;
  return {
    key: msg.subject.slice(prefix.length),
    seq: msg.seq,
    time: msg.time.getTime(),
    value: msg.data,
    operation: op === 'DEL' || op === 'PURGE' ? 'delete' : 'put',
    parent: Number.isInteger(parent) && parent >= 0 ? parent : null,
  };
}

export function toEntry(bucket: string, record: KvRecord): KvEntry {
  return {
    bucket,
    key: record.key,
    value: record.value,
    revision: record.seq,
    created: new Date(record.time),
    operation: record.operation,
  };
}

function fromStored(prefix: string, msg: StoredMsg): KvRecord {
  return toRecord(prefix, {
    subject: msg.subject,
    seq: msg.seq,
    time: msg.time,
    data: msg.data,
    headers: msg.header,
  });
}

/** The keys with records stored on subjects matching `filter` (deleted and losing ones included). */
export async function storedKeys(host: EngineHost, layout: BucketLayout, filter: string): Promise<string[]> {
  await host.ready();
  try {
    const info = await host.jsm.streams.info(layout.stream, { subjects_filter: filter });
    return Object.keys(info.state.subjects ?? {}).map((s) => s.slice(layout.prefix.length));
  } catch (error) {
    throw translate(error, `kv ${layout.bucket}`);
  }
}

export class KeyStates {
  private readonly cache = new Map<string, KeyState>();

  constructor(
    private readonly host: EngineHost,
    private readonly layout: BucketLayout,
  ) {}

  /** The key's newest record, or null. */
  async lastRecord(key: string): Promise<KvRecord | null> {
    await this.host.ready();
    try {
      const msg = await readThroughElection(this.host, (jsm) =>
        jsm.streams.getMessage(this.layout.stream, { last_by_subj: `${this.layout.prefix}${key}` }),
      );
      return msg ? fromStored(this.layout.prefix, msg) : null;
    } catch (error) {
      throw translate(error, `kv ${this.layout.bucket}`);
    }
  }

  /** The key's records from `fromSeq` on (through `upTo` when given), oldest first. */
  async records(key: string, fromSeq: number, upTo = Infinity): Promise<KvRecord[]> {
    const subject = `${this.layout.prefix}${key}`;
    const out: KvRecord[] = [];
    let seq = Math.max(1, fromSeq);
    try {
      while (seq <= upTo) {
        await this.host.ready();
        // next_by_subj is served by MSG.GET since nats-server 2.9; the client's type only lists it for direct get.
        const query = { seq, next_by_subj: subject } as MsgRequest;
        const msg = await readThroughElection(this.host, (jsm) =>
          jsm.streams.getMessage(this.layout.stream, query),
        );
        if (!msg || msg.seq > upTo) break;
        out.push(fromStored(this.layout.prefix, msg));
        seq = msg.seq + 1;
      }
    } catch (error) {
      throw translate(error, `kv ${this.layout.bucket}`);
    }
    return out;
  }

  /** Judges the key's records through `upTo` (default: all), continuing from `base` when it can. */
  async advance(key: string, base: KeyState | null, upTo = Infinity): Promise<Walk> {
    if (base) {
      const next = await this.records(key, base.last + 1, upTo);
      const walk = continueWalk(base, next, this.layout.ttlMs, this.layout.history);
      if (walk) return this.remember(key, walk);
    }
    return this.remember(key, judge(await this.records(key, 1, upTo), this.layout.ttlMs));
  }

  /** The key's judged state as of now. */
  async current(key: string): Promise<KeyState> {
    const last = await this.lastRecord(key);
    let cached = this.cache.get(key);
    if (cached && last && cached.last > last.seq) {
      // The key's stream went back (bucket recreated): forget what was judged before.
      this.cache.delete(key);
      cached = undefined;
    }
    if (!last) {
      this.cache.delete(key);
      return emptyState;
    }
    if (cached && cached.last === last.seq) return cached;
    // The newest record is unconditional: it alone decides, whatever came before.
    if (last.parent === null)
      return this.remember(key, { state: settledBy(last), verdicts: new Map() }).state;
    const base = cached && cached.last < last.seq ? cached : null;
    return (await this.advance(key, base)).state;
  }

  private remember(key: string, walk: Walk): Walk {
    const cached = this.cache.get(key);
    if (!cached || walk.state.last >= cached.last) {
      this.cache.delete(key);
      this.cache.set(key, walk.state);
      if (this.cache.size > cacheLimit) {
        const oldest = this.cache.keys().next().value;
        if (oldest !== undefined) this.cache.delete(oldest);
      }
    }
    return walk;
  }
}
