/**
 * The memory engine's SQL over its streams' messages, and the row it reads back into a message.
 */
import type { Headers, StoredMessage } from '../bus.js';
import type { Db } from './store.js';

export interface Row {
  seq: number;
  subject: string;
  time_ms: number;
  headers: string | null;
  data: Buffer;
}

export const emptyHeaders: Headers = Object.freeze({});

export function toMessage(stream: string, row: Row): StoredMessage {
  return {
    stream,
    seq: row.seq,
    subject: row.subject,
    time: new Date(row.time_ms),
    headers: row.headers ? (JSON.parse(row.headers) as Headers) : emptyHeaders,
    data: new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength),
  };
}

/**
 * A page's body column. A large body left out is never read: SQLite keeps it in overflow pages, and
 * neither the subject test nor the header search (`instr` on the headers' JSON text) reaches them.
 */
const body = "CASE WHEN subject = ? AND instr(headers, ?) > 0 THEN x'' ELSE data END AS data";

/** What a page query takes first to leave bodies out: the subject and the header's key as JSON text. */
export function skipParams(
  skip: { readonly subject: string; readonly header: string } | undefined,
): [string | null, string | null] {
  return skip === undefined ? [null, null] : [skip.subject, `${JSON.stringify(skip.header)}:`];
}

/** Statements prepared once per database. */
export function prepare(db: Db) {
  return {
    upsertStream: db.prepare(
      'INSERT INTO streams (name, spec, last_seq) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET spec = excluded.spec',
    ),
    setLastSeq: db.prepare('UPDATE streams SET last_seq = ? WHERE name = ?'),
    allStreams: db.prepare('SELECT name, spec, last_seq FROM streams'),
    insert: db.prepare(
      'INSERT INTO messages (stream, seq, subject, time_ms, headers, data) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    get: db.prepare('SELECT seq, subject, time_ms, headers, data FROM messages WHERE stream = ? AND seq = ?'),
    // Pages take a subject and a header needle first: a message on that subject whose headers hold the
    // needle comes with an empty body, left unread (null, null: every body is read).
    page: db.prepare(
      `SELECT seq, subject, time_ms, headers, ${body} FROM messages WHERE stream = ? AND seq >= ? AND seq <= ? ORDER BY seq LIMIT ?`,
    ),
    pageOfSubject: db.prepare(
      `SELECT seq, subject, time_ms, headers, ${body} FROM messages WHERE stream = ? AND subject = ? AND seq >= ? AND seq <= ? ORDER BY seq LIMIT ?`,
    ),
    // Without `data`: a WITHOUT ROWID row keeps its large last column in overflow pages, left unread.
    subjects: db.prepare(
      'SELECT seq, subject FROM messages WHERE stream = ? AND seq >= ? AND seq <= ? ORDER BY seq LIMIT ?',
    ),
    firstAtTime: db.prepare('SELECT MIN(seq) AS seq FROM messages WHERE stream = ? AND time_ms >= ?'),
    bounds: db.prepare('SELECT MIN(seq) AS first, COUNT(*) AS count FROM messages WHERE stream = ?'),
    firstTime: db.prepare('SELECT time_ms FROM messages WHERE stream = ? ORDER BY seq LIMIT 1'),
    first: db.prepare('SELECT seq, time_ms FROM messages WHERE stream = ? ORDER BY seq LIMIT 1'),
    lastPerSubject: db.prepare(
      'SELECT subject, MAX(seq) AS seq FROM messages WHERE stream = ? GROUP BY subject',
    ),
    nextOfSubject: db.prepare(
      'SELECT seq, subject, time_ms, headers, data FROM messages WHERE stream = ? AND subject = ? AND seq >= ? ORDER BY seq LIMIT 1',
    ),
    lastOfSubject: db.prepare('SELECT MAX(seq) AS seq FROM messages WHERE stream = ? AND subject = ?'),
    allOfSubject: db.prepare(
      'SELECT seq, subject, time_ms, headers, data FROM messages WHERE stream = ? AND subject = ? ORDER BY seq',
    ),
    countOfSubject: db.prepare('SELECT COUNT(*) AS count FROM messages WHERE stream = ? AND subject = ?'),
    oldestOfSubject: db.prepare(
      'SELECT seq FROM messages WHERE stream = ? AND subject = ? ORDER BY seq LIMIT ?',
    ),
    oldest: db.prepare('SELECT seq, subject FROM messages WHERE stream = ? ORDER BY seq LIMIT ?'),
    olderThan: db.prepare('SELECT seq, subject FROM messages WHERE stream = ? AND time_ms < ?'),
    remove: db.prepare('DELETE FROM messages WHERE stream = ? AND seq = ?'),
    removeBelow: db.prepare('DELETE FROM messages WHERE stream = ? AND seq < ?'),
    subjectsBelow: db.prepare('SELECT seq, subject FROM messages WHERE stream = ? AND seq < ? ORDER BY seq'),
    dropMessages: db.prepare('DELETE FROM messages WHERE stream = ?'),
    dropDedup: db.prepare('DELETE FROM dedup_log WHERE stream = ?'),
    dropConsumers: db.prepare('DELETE FROM consumers WHERE stream = ?'),
    dropConsumerAcks: db.prepare('DELETE FROM consumer_acks WHERE stream = ?'),
    dropStream: db.prepare('DELETE FROM streams WHERE name = ?'),
    dedupInsert: db.prepare('INSERT INTO dedup_log (stream, msg_id, seq, time_ms) VALUES (?, ?, ?, ?)'),
    // The old end of the log: through the newest expired sequence, by key.
    dedupPrune: db.prepare('DELETE FROM dedup_log WHERE stream = ? AND seq <= ? AND time_ms < ?'),
    // In append order, so an id stored again after its window expired maps to its newest message.
    dedupAll: db.prepare('SELECT msg_id, seq, time_ms FROM dedup_log WHERE stream = ? ORDER BY seq'),
  };
}

export type Statements = ReturnType<typeof prepare>;
