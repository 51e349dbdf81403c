/**
 * What takes messages out of a memory-engine stream: its limits (max age, max messages, per-subject
 * history), one removal (work-queue ack, KV purge) and an operator's trim. Each deletes the rows and
 * corrects the stream's cached state to match; call inside a transaction.
 */
import { subjectMatches } from '../subject-match.js';
import type { Row, Statements } from './statements.js';
import type { StreamState } from './stream-state.js';

/** Applies max age, max messages and, for `touchedSubject`, per-subject history. */
export function enforceStreamLimits(
  sql: Statements,
  name: string,
  s: StreamState,
  now: number,
  touchedSubject?: string,
): void {
  const removed: Array<{ seq: number; subject: string }> = [];
  if (touchedSubject !== undefined && s.spec.maxMsgsPerSubject) {
    const { count } = sql.countOfSubject.get(name, touchedSubject) as { count: number };
    if (count > s.spec.maxMsgsPerSubject) {
      for (const r of sql.oldestOfSubject.all(
        name,
        touchedSubject,
        count - s.spec.maxMsgsPerSubject,
      ) as Array<{ seq: number }>) {
        removed.push({ seq: r.seq, subject: touchedSubject });
      }
    }
  }
  if (s.spec.maxAgeMs && s.count > 0 && s.firstTime < now - s.spec.maxAgeMs) {
    removed.push(
      ...(sql.olderThan.all(name, now - s.spec.maxAgeMs) as Array<{ seq: number; subject: string }>),
    );
  }
  if (s.spec.maxMsgs && s.count - removed.length > s.spec.maxMsgs) {
    const taken = new Set(removed.map((r) => r.seq));
    const excess = s.count - removed.length - s.spec.maxMsgs;
    const oldest = sql.oldest.all(name, excess + removed.length) as Array<{
      seq: number;
      subject: string;
    }>;
    removed.push(...oldest.filter((r) => !taken.has(r.seq)).slice(0, excess));
  }
  if (removed.length === 0) return;
  let gone = 0;
  for (const r of removed) gone += sql.remove.run(name, r.seq).changes;
  forget(sql, name, s, removed, gone);
}

/** Removes one message. */
export function removeStreamMessage(sql: Statements, name: string, s: StreamState, seq: number): void {
  const kept = s.tail.get(seq);
  if (kept === null) return;
  const subject = kept?.subject ?? (sql.get.get(name, seq) as Row | undefined)?.subject;
  if (subject === undefined) return;
  const { changes } = sql.remove.run(name, seq);
  forget(sql, name, s, [{ seq, subject }], changes);
}

/** Removes every message below `seq` (with `subject`, those on matching subjects); returns how many went. */
export function purgeStreamBelow(
  sql: Statements,
  name: string,
  s: StreamState,
  seq: number,
  subject?: string,
): number {
  if (s.count === 0 || seq <= s.firstSeq) return 0;
  if (subject !== undefined) {
    const below = sql.subjectsBelow.all(name, seq) as Array<{ seq: number; subject: string }>;
    const removed = below.filter((r) => subjectMatches(subject, r.subject));
    let gone = 0;
    for (const r of removed) gone += sql.remove.run(name, r.seq).changes;
    forget(sql, name, s, removed, gone);
    return gone;
  }
  const { changes } = sql.removeBelow.run(name, seq);
  // A subject whose newest message went has nothing left: its newest is its last.
  for (const [subject, last] of s.subjectLast) if (last < seq) s.subjectLast.delete(subject);
  // The tail keeps consecutive sequences; dropping it sends readers to SQLite until the next append.
  s.tail.clear();
  s.count = Math.max(0, s.count - changes);
  const first = sql.first.get(name) as { seq: number; time_ms: number } | undefined;
  s.firstSeq = first?.seq ?? s.lastSeq + 1;
  s.firstTime = first?.time_ms ?? 0;
  return changes;
}

/** Corrects the cached state after `removed` (of which `gone` rows existed) left the database. */
function forget(
  sql: Statements,
  name: string,
  s: StreamState,
  removed: ReadonlyArray<{ seq: number; subject: string }>,
  gone: number,
): void {
  for (const r of removed) {
    s.tail.remove(r.seq);
    if (s.subjectLast.get(r.subject) === r.seq) {
      const last = sql.lastOfSubject.get(name, r.subject) as { seq: number | null };
      if (last.seq === null) s.subjectLast.delete(r.subject);
      else s.subjectLast.set(r.subject, last.seq);
    }
  }
  // Counted down rather than recounted: COUNT(*) walks the whole stream, and a KV bucket trims its
  // history (or a work queue drops an acked message) on nearly every write.
  s.count = Math.max(0, s.count - gone);
  if (s.count === 0) {
    s.firstSeq = s.lastSeq + 1;
    s.firstTime = 0;
  } else if (removed.some((r) => r.seq === s.firstSeq)) {
    const first = sql.first.get(name) as { seq: number; time_ms: number } | undefined;
    s.firstSeq = first?.seq ?? s.lastSeq + 1;
    s.firstTime = first?.time_ms ?? 0;
  }
}
