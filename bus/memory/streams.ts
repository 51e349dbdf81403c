/**
 * Streams of the memory engine: appends in group-committed SQLite transactions (every publish that
 * arrives in one tick shares one commit), de-duplication, and ordered reads; limits and removals are in
 * retention.ts. SQLite is the truth; the in-memory state (stream-state.ts) is a cache rebuilt at open
 * and after a failed commit.
 */
import type { PubAck, PublishOptions, SkipBodies, StoredMessage, StreamInfo } from '../bus.js';
import { BusError, NoStreamForSubjectError, StreamNotFoundError, WrongLastSequenceError } from '../errors.js';
import { assertName, assertSubject, subjectMatches } from '../subject-match.js';
import { DedupWindow } from './dedup.js';
import { enforceStreamLimits, purgeStreamBelow, removeStreamMessage } from './retention.js';
import { emptyHeaders, prepare, skipParams, toMessage, type Row, type Statements } from './statements.js';
import type { Db } from './store.js';
import type { EngineStreamSpec, StreamState } from './stream-state.js';
import { Tail } from './tail.js';

/** Bodies one page read from the database holds at most (past its first message). */
const pageBytes = 4 * 1024 * 1024;
const defaultDuplicateWindowMs = 120_000;

export class StreamStore {
  private readonly sql: Statements;
  readonly streams = new Map<string, StreamState>();
  private readonly routeCache = new Map<string, StreamState | null>();
  /** Streams appended to in the running transaction: their last sequence is written once, before it commits. */
  private readonly sequenced = new Set<string>();

  constructor(private readonly db: Db) {
    this.sql = prepare(db);
    this.load();
  }

  /** Rebuilds every cached fact from the database (at open, and after a failed commit). */
  load(): void {
    this.streams.clear();
    this.routeCache.clear();
    this.sequenced.clear();
    for (const row of this.sql.allStreams.all() as Array<{ name: string; spec: string; last_seq: number }>) {
      const state: StreamState = {
        spec: JSON.parse(row.spec) as EngineStreamSpec,
        lastSeq: row.last_seq,
        firstSeq: 0,
        firstTime: 0,
        lastTime: 0,
        count: 0,
        subjectLast: new Map(),
        dedup: new DedupWindow(),
        tail: new Tail(),
      };
      this.refreshBounds(row.name, state);
      for (const r of this.sql.lastPerSubject.all(row.name) as Array<{ subject: string; seq: number }>) {
        state.subjectLast.set(r.subject, r.seq);
      }
      for (const d of this.sql.dedupAll.all(row.name) as Array<{
        msg_id: string;
        seq: number;
        time_ms: number;
      }>) {
        state.dedup.record(d.msg_id, d.seq, d.time_ms);
      }
      const last =
        state.lastSeq > 0 ? (this.sql.get.get(row.name, state.lastSeq) as Row | undefined) : undefined;
      state.lastTime = last?.time_ms ?? 0;
      this.streams.set(row.name, state);
    }
  }

  private refreshBounds(name: string, state: StreamState): void {
    const bounds = this.sql.bounds.get(name) as { first: number | null; count: number };
    state.count = bounds.count;
    state.firstSeq = bounds.first ?? state.lastSeq + 1;
    const first = this.sql.firstTime.get(name) as { time_ms: number } | undefined;
    state.firstTime = first?.time_ms ?? 0;
  }

  ensure(spec: EngineStreamSpec, now: number): StreamInfo {
    assertName('stream', spec.name);
    if (spec.subjects.length === 0)
      throw new BusError(`stream ${spec.name}: at least one subject is required`);
    for (const subject of spec.subjects) assertSubject(subject, true);
    for (const [name, other] of this.streams) {
      if (name === spec.name) continue;
      const overlap = spec.subjects.find((s) =>
        other.spec.subjects.some((o) => subjectMatches(o, s) || subjectMatches(s, o)),
      );
      if (overlap) throw new BusError(`stream ${spec.name}: subject ${overlap} overlaps stream ${name}`);
    }
    const existing = this.streams.get(spec.name);
    this.sql.upsertStream.run(spec.name, JSON.stringify(spec), existing?.lastSeq ?? 0);
    if (existing) existing.spec = spec;
    else {
      this.streams.set(spec.name, {
        spec,
        lastSeq: 0,
        firstSeq: 1,
        firstTime: 0,
        lastTime: 0,
        count: 0,
        subjectLast: new Map(),
        dedup: new DedupWindow(),
        tail: new Tail(),
      });
    }
    this.routeCache.clear();
    this.enforceLimits(spec.name, now);
    return this.info(spec.name);
  }

  state(name: string): StreamState {
    const state = this.streams.get(name);
    if (!state) throw new StreamNotFoundError(`stream ${name} does not exist`);
    return state;
  }

  info(name: string): StreamInfo {
    const s = this.state(name);
    return {
      name,
      firstSeq: s.count === 0 ? s.lastSeq + 1 : s.firstSeq,
      lastSeq: s.lastSeq,
      messages: s.count,
    };
  }

  /** The stream capturing `subject`. */
  route(subject: string): [string, StreamState] {
    let state = this.routeCache.get(subject);
    if (state === undefined) {
      state = null;
      for (const candidate of this.streams.values()) {
        if (candidate.spec.subjects.some((filter) => subjectMatches(filter, subject))) state = candidate;
      }
      // Subjects are few in practice (event types, seat inboxes, keys); a bound keeps a flood harmless.
      if (this.routeCache.size > 10_000) this.routeCache.clear();
      this.routeCache.set(subject, state);
    }
    if (!state) throw new NoStreamForSubjectError(`no stream captures subject ${subject}`);
    return [state.spec.name, state];
  }

  /**
   * Appends one message; call inside a transaction. Checks run against the state as it stands after
   * the earlier appends of the same batch, so a batch behaves exactly like appends one by one.
   */
  append(subject: string, data: Uint8Array, opts: PublishOptions | undefined, now: number): PubAck {
    assertSubject(subject, false);
    const [name, s] = this.route(subject);
    const windowMs = s.spec.duplicateWindowMs ?? defaultDuplicateWindowMs;
    if (opts?.msgId !== undefined) {
      const seen = s.dedup.seen(opts.msgId, now, windowMs);
      if (seen !== null) return { stream: name, seq: seen, duplicate: true };
    }
    if (opts?.expectedLastSeq !== undefined && opts.expectedLastSeq !== s.lastSeq) {
      throw new WrongLastSequenceError(opts.expectedLastSeq, s.lastSeq);
    }
    if (opts?.expectedLastSubjectSeq !== undefined) {
      const last = s.subjectLast.get(subject) ?? 0;
      if (opts.expectedLastSubjectSeq !== last)
        throw new WrongLastSequenceError(opts.expectedLastSubjectSeq, last);
    }
    const seq = s.lastSeq + 1;
    const time = Math.max(now, s.lastTime);
    const hasHeaders = opts?.headers !== undefined && Object.keys(opts.headers).length > 0;
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    this.sql.insert.run(name, seq, subject, time, hasHeaders ? JSON.stringify(opts.headers) : null, bytes);
    // Readers share the kept message: frozen headers and a copy of the bytes the caller may reuse.
    s.tail.push({
      stream: name,
      seq,
      subject,
      time: new Date(time),
      headers: hasHeaders ? Object.freeze({ ...opts.headers }) : emptyHeaders,
      data: new Uint8Array(bytes),
    });
    this.sequenced.add(name);
    if (s.count === 0) {
      s.firstSeq = seq;
      s.firstTime = time;
    }
    s.lastSeq = seq;
    s.lastTime = time;
    s.count += 1;
    s.subjectLast.set(subject, seq);
    if (opts?.msgId !== undefined) {
      s.dedup.record(opts.msgId, seq, time);
      this.sql.dedupInsert.run(name, opts.msgId, seq, time);
    }
    enforceStreamLimits(this.sql, name, s, now, subject);
    return { stream: name, seq, duplicate: false };
  }

  /**
   * Writes the last sequence of every stream appended to since the last call; call inside the transaction
   * of those appends, after the last of them. One write per stream per commit instead of one per message,
   * and the stored last sequence is never behind a stored message: both are in the same commit.
   */
  saveSequences(): void {
    for (const name of this.sequenced) {
      const s = this.streams.get(name);
      if (s) this.sql.setLastSeq.run(s.lastSeq, name);
    }
    this.sequenced.clear();
  }

  /** Removes one message (work-queue ack, KV purge); call inside a transaction. */
  removeMessage(name: string, seq: number): void {
    removeStreamMessage(this.sql, name, this.state(name), seq);
  }

  /** Removes every message below `seq`, or those on subjects matching `subject` (a trim); call inside a transaction. */
  purgeBelow(name: string, seq: number, subject?: string): number {
    return purgeStreamBelow(this.sql, name, this.state(name), seq, subject);
  }

  /** Removes a stream, its messages and its consumers' positions; call inside a transaction. */
  drop(name: string): boolean {
    if (!this.streams.has(name)) return false;
    for (const statement of [
      this.sql.dropMessages,
      this.sql.dropDedup,
      this.sql.dropConsumers,
      this.sql.dropConsumerAcks,
      this.sql.dropStream,
    ])
      statement.run(name);
    this.streams.delete(name);
    this.routeCache.clear();
    return true;
  }

  /** Applies max age and max messages (the periodic sweep); call inside a transaction. */
  enforceLimits(name: string, now: number): void {
    enforceStreamLimits(this.sql, name, this.state(name), now);
  }

  /** Drops de-duplication ids older than the window; call inside a transaction. */
  pruneDedup(name: string, now: number): void {
    const s = this.state(name);
    const cutoff = now - (s.spec.duplicateWindowMs ?? defaultDuplicateWindowMs);
    const newestPruned = s.dedup.forgetBefore(cutoff);
    if (newestPruned > 0) this.sql.dedupPrune.run(name, newestPruned, cutoff);
  }

  getMessage(name: string, seq: number): StoredMessage | null {
    const kept = this.state(name).tail.get(seq);
    if (kept !== undefined) return kept;
    const row = this.sql.get.get(name, seq) as Row | undefined;
    return row ? toMessage(name, row) : null;
  }

  lastMessage(name: string, subject: string): StoredMessage | null {
    const seq = this.state(name).subjectLast.get(subject);
    return seq === undefined ? null : this.getMessage(name, seq);
  }

  nextMessage(name: string, subject: string, fromSeq: number): StoredMessage | null {
    this.state(name);
    const row = this.sql.nextOfSubject.get(name, subject, Math.max(1, Math.floor(fromSeq))) as
      Row | undefined;
    return row ? (this.state(name).tail.get(row.seq) ?? toMessage(name, row)) : null;
  }

  /**
   * Up to `limit` messages with `from <= seq <= to`, in order, and bodies of about `pageBytes` at most
   * (always one message at least): a page of large documents is not read into memory whole.
   */
  page(name: string, from: number, to: number, limit: number, skip?: SkipBodies): StoredMessage[] {
    const kept = this.state(name).tail.page(from, to, limit);
    if (kept !== undefined) return kept;
    return this.rows(name, this.sql.page.iterate(...skipParams(skip), name, from, to, limit)).messages;
  }

  /**
   * The messages of one page whose subject matches `filter`, and the sequence to read on from. Bodies of
   * the others are not read: a replay of a few small records among large ones reads only the small ones.
   */
  pageMatching(
    name: string,
    from: number,
    to: number,
    limit: number,
    filter: { readonly subject: string; readonly matches: (subject: string) => boolean },
    skip?: SkipBodies,
  ): { readonly messages: StoredMessage[]; readonly next: number } {
    const kept = this.state(name).tail.page(from, to, limit);
    if (kept !== undefined) {
      const next = kept.length === limit ? (kept[kept.length - 1] as StoredMessage).seq + 1 : to + 1;
      return { messages: kept.filter((m) => filter.matches(m.subject)), next };
    }
    if (!/[*>]/.test(filter.subject)) {
      // One subject: the query filters on it, so no other message's body is read.
      const rows = this.sql.pageOfSubject.iterate(...skipParams(skip), name, filter.subject, from, to, limit);
      const { messages, cut } = this.rows(name, rows);
      const last = messages[messages.length - 1];
      return { messages, next: last && (cut || messages.length === limit) ? last.seq + 1 : to + 1 };
    }
    // A wildcard: subjects first (no bodies), then the matching messages one by one.
    const scanned = this.sql.subjects.all(name, from, to, limit) as Array<{ seq: number; subject: string }>;
    const messages: StoredMessage[] = [];
    let bytes = 0;
    for (const { seq, subject } of scanned) {
      if (!filter.matches(subject)) continue;
      const message = this.page(name, seq, seq, 1, skip)[0];
      if (!message) continue;
      messages.push(message);
      bytes += message.data.byteLength;
      if (bytes >= pageBytes) return { messages, next: seq + 1 };
    }
    const last = scanned[scanned.length - 1];
    return { messages, next: last && scanned.length === limit ? last.seq + 1 : to + 1 };
  }

  /** Rows read until `pageBytes` of bodies; `cut` when that bound ended the page. */
  private rows(name: string, rows: IterableIterator<unknown>): { messages: StoredMessage[]; cut: boolean } {
    const messages: StoredMessage[] = [];
    let bytes = 0;
    for (const row of rows as IterableIterator<Row>) {
      messages.push(toMessage(name, row));
      bytes += row.data.byteLength;
      // Leaving the loop resets the statement, so the connection is free for the next query.
      if (bytes >= pageBytes) return { messages, cut: true };
    }
    return { messages, cut: false };
  }

  /** Every retained message on one subject, oldest first. */
  bySubject(name: string, subject: string): StoredMessage[] {
    return (this.sql.allOfSubject.all(name, subject) as Row[]).map((row) => toMessage(name, row));
  }

  /** First sequence stored at or after `time`, or lastSeq + 1. */
  seqAtTime(name: string, time: Date): number {
    const row = this.sql.firstAtTime.get(name, time.getTime()) as { seq: number | null };
    return row.seq ?? this.state(name).lastSeq + 1;
  }
}
