/**
 * KV buckets of the memory engine, stored like JetStream's: one stream `KV_<bucket>` over subjects
 * `$KV.<bucket>.<key>`, a delete being a record with `KV-Operation: DEL`. Compare-and-set runs inside
 * the commit transaction, which SQLite serialises (BEGIN IMMEDIATE), so exactly one racing writer wins.
 */
import type { Kv, KvEntry, KvSpec, KvWatchOptions, StoredMessage, Subscription } from '../bus.js';
import { InvalidNameError, KvConflictError } from '../errors.js';
import { assertName, assertSubject, subjectMatches } from '../subject-match.js';
import { settle } from './settle.js';
import type { StreamStore } from './streams.js';

/** What a bucket needs from the engine. */
export interface KvHost {
  readonly streams: StreamStore;
  /** Runs `work` inside the next group commit and resolves with its result after the commit. */
  commit<T>(work: (now: number) => T): Promise<T>;
  /** Ordered, unbounded push from a sequence (not durable). */
  follow(stream: string, fromSeq: number, onMessage: (msg: StoredMessage) => void): Promise<Subscription>;
  assertOpen(): void;
  /** Appends inside the running commit (announced to watchers after it). */
  append(
    subject: string,
    data: Uint8Array,
    opts: { headers?: Record<string, string> } | undefined,
    now: number,
  ): { seq: number };
  /** The engine's clock for stored time (ms): what a TTL is judged against. */
  now(): number;
}

const deleteHeader = 'KV-Operation';
const KEY = /^[-/_=.a-zA-Z0-9]+$/;

export function kvStreamName(bucket: string): string {
  return `KV_${bucket}`;
}

function assertKey(key: string): void {
  if (!KEY.test(key) || key.startsWith('.') || key.endsWith('.') || key.includes('..')) {
    throw new InvalidNameError(`invalid key "${key}": use letters, digits and - / _ = . (no empty tokens)`);
  }
}

export function openKv(host: KvHost, spec: KvSpec, now: number): Kv {
  assertName('bucket', spec.name);
  const bucket = spec.name;
  const stream = kvStreamName(bucket);
  const prefix = `$KV.${bucket}.`;
  host.streams.ensure(
    {
      name: stream,
      subjects: [`${prefix}>`],
      maxMsgsPerSubject: spec.history ?? 64,
      ...(spec.ttlMs ? { maxAgeMs: spec.ttlMs } : {}),
    },
    now,
  );

  const toEntry = (msg: StoredMessage): KvEntry => ({
    bucket,
    key: msg.subject.slice(prefix.length),
    value: msg.data,
    revision: msg.seq,
    created: msg.time,
    operation: msg.headers[deleteHeader] === 'DEL' ? 'delete' : 'put',
  });
  const expired = (msg: StoredMessage, now: number): boolean =>
    spec.ttlMs !== undefined && msg.time.getTime() < now - spec.ttlMs;
  /** The key's last live record, or null when absent, deleted or expired. */
  const current = (key: string, now: number): StoredMessage | null => {
    const last = host.streams.lastMessage(stream, `${prefix}${key}`);
    if (!last || last.headers[deleteHeader] === 'DEL' || expired(last, now)) return null;
    return last;
  };
  const write = (key: string, value: Uint8Array, now: number, del = false): number =>
    host.append(`${prefix}${key}`, value, del ? { headers: { [deleteHeader]: 'DEL' } } : undefined, now).seq;

  return {
    name: bucket,
    get: (key) =>
      settle(() => {
        host.assertOpen();
        assertKey(key);
        const last = current(key, host.now());
        return last ? toEntry(last) : null;
      }),
    async put(key, value) {
      assertKey(key);
      return host.commit((now) => write(key, value, now));
    },
    async create(key, value) {
      assertKey(key);
      return host.commit((now) => {
        const last = current(key, now);
        if (last) throw new KvConflictError(bucket, key, 0, last.seq);
        return write(key, value, now);
      });
    },
    async update(key, value, expectedRevision) {
      assertKey(key);
      return host.commit((now) => {
        const last = current(key, now);
        const revision = last?.seq ?? 0;
        if (revision !== expectedRevision) throw new KvConflictError(bucket, key, expectedRevision, revision);
        return write(key, value, now);
      });
    },
    async delete(key, opts) {
      assertKey(key);
      await host.commit((now) => {
        const last = current(key, now);
        if (opts?.expectedRevision !== undefined && (last?.seq ?? 0) !== opts.expectedRevision) {
          throw new KvConflictError(bucket, key, opts.expectedRevision, last?.seq ?? 0);
        }
        if (last) write(key, new Uint8Array(0), now, true);
      });
    },
    keys: (filter) =>
      settle(() => {
        host.assertOpen();
        if (filter !== undefined) assertSubject(filter, true);
        const now = host.now();
        const keys: string[] = [];
        for (const subject of host.streams.state(stream).subjectLast.keys()) {
          const key = subject.slice(prefix.length);
          if (filter !== undefined && !subjectMatches(filter, key)) continue;
          if (current(key, now)) keys.push(key);
        }
        return keys.sort();
      }),
    history: (key) =>
      settle(() => {
        host.assertOpen();
        assertKey(key);
        return host.streams.bySubject(stream, `${prefix}${key}`).map(toEntry);
      }),
    async watch(onEntry, opts?: KvWatchOptions) {
      host.assertOpen();
      const filter = opts?.key ?? '>';
      assertSubject(filter, true);
      const info = host.streams.info(stream);
      if (opts?.initial !== false) {
        const now = host.now();
        const latest = [...host.streams.state(stream).subjectLast.entries()]
          .filter(([subject]) => subjectMatches(filter, subject.slice(prefix.length)))
          .sort((a, b) => a[1] - b[1]);
        for (const [subject] of latest) {
          const last = current(subject.slice(prefix.length), now);
          if (last) onEntry(toEntry(last));
        }
      }
      return host.follow(stream, info.lastSeq + 1, (msg) => {
        if (subjectMatches(filter, msg.subject.slice(prefix.length))) onEntry(toEntry(msg));
      });
    },
  };
}
