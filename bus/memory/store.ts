/**
 * The memory engine's storage: one SQLite database (`<store_dir>/bus.sqlite`, WAL) or SQLite in
 * memory when no directory is set, so both modes run the same code. A lock file keeps a second
 * process out: two writers would interleave sequences.
 */
import Database from 'better-sqlite3';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { EngineUnavailableError } from '../errors.js';

export type Db = Database.Database;

/*
 * Message ids are kept in append order (`dedup_log`, keyed by sequence): lookups are the engine's map in
 * memory, so the table is only written, loaded at open and pruned from its old end. Keyed by the id itself
 * (random for events and vendors' deliveries), every insert landed on a random page of the tree and a
 * commit wrote one page per message: appends with random ids ran at half the rate of ordered ones.
 */
const schema = `
CREATE TABLE IF NOT EXISTS streams (
  name TEXT PRIMARY KEY,
  spec TEXT NOT NULL,
  last_seq INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS messages (
  stream TEXT NOT NULL,
  seq INTEGER NOT NULL,
  subject TEXT NOT NULL,
  time_ms INTEGER NOT NULL,
  headers TEXT,
  data BLOB NOT NULL,
  PRIMARY KEY (stream, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS messages_by_subject ON messages (stream, subject, seq);
CREATE INDEX IF NOT EXISTS messages_by_time ON messages (stream, time_ms, seq);
CREATE TABLE IF NOT EXISTS dedup_log (
  stream TEXT NOT NULL,
  seq INTEGER NOT NULL,
  msg_id TEXT NOT NULL,
  time_ms INTEGER NOT NULL,
  PRIMARY KEY (stream, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS consumers (
  stream TEXT NOT NULL,
  name TEXT NOT NULL,
  spec TEXT NOT NULL,
  ack_floor INTEGER NOT NULL,
  PRIMARY KEY (stream, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS consumer_acks (
  stream TEXT NOT NULL,
  name TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (stream, name, seq)
) WITHOUT ROWID;
`;

/** Moves the message ids of a store written by an earlier release (table `dedup`, keyed by id). */
function migrateDedup(db: Db): void {
  const legacy = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dedup'").get();
  if (legacy === undefined) return;
  db.transaction(() => {
    db.exec(
      'INSERT OR IGNORE INTO dedup_log (stream, seq, msg_id, time_ms) SELECT stream, seq, msg_id, time_ms FROM dedup',
    );
    db.exec('DROP TABLE dedup');
  }).immediate();
}

export interface OpenedStore {
  readonly db: Db;
  /** The database file, or null in pure memory. */
  readonly file: string | null;
  release(): void;
}

/**
 * Opens (creating, unless `existing`) the store; every failure names the file and the cause.
 */
export function openStore(storeDir: string | undefined, opts: { existing?: boolean } = {}): OpenedStore {
  if (storeDir === undefined) {
    const db = new Database(':memory:');
    db.exec(schema);
    return { db, file: null, release: () => db.close() };
  }
  if (opts.existing && !existsSync(join(storeDir, 'bus.sqlite'))) {
    throw new EngineUnavailableError(`memory bus: no store at ${storeDir} (it holds no bus.sqlite)`);
  }
  try {
    mkdirSync(storeDir, { recursive: true });
  } catch (error) {
    throw new EngineUnavailableError(
      `memory bus: cannot create the store directory ${storeDir} (${codeOf(error)}): ${storeDirFix(codeOf(error))}`,
      { cause: error },
    );
  }
  const lockFile = join(storeDir, 'bus.lock');
  takeLock(lockFile);
  const file = join(storeDir, 'bus.sqlite');
  try {
    assertWritable(storeDir);
  } catch (error) {
    releaseLock(lockFile);
    throw error;
  }
  let db: Db | undefined;
  try {
    // No busy wait: only another process can hold the lock, and waiting would not help.
    db = new Database(file, { timeout: 0 });
    // The lock file gives a readable refusal; SQLite's own lock, held until this process ends
    // (even by SIGKILL), makes a second writer impossible should two processes race past it.
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    // WAL + NORMAL: a commit is in the OS before it is acknowledged, so SIGKILL loses nothing;
    // power loss may lose the last commits (ops/memory-engine.md).
    db.pragma('synchronous = NORMAL');
    db.exec(schema);
    migrateDedup(db);
    // The check reads every page of the file; through the normal page cache (16 MiB) it would leave a
    // node's memory at boot following the size of its history, so it runs through a small one.
    const cacheSize = db.pragma('cache_size', { simple: true }) as number;
    db.pragma('cache_size = 64');
    const check = db.pragma('quick_check', { simple: true });
    db.pragma(`cache_size = ${cacheSize}`);
    if (check !== 'ok') throw new Error(`integrity check: ${String(check)}`);
  } catch (error) {
    db?.close();
    releaseLock(lockFile);
    if (codeOf(error) === 'SQLITE_BUSY') {
      throw new EngineUnavailableError(
        `memory bus: the store ${file} is locked by another process; the memory engine is single-process`,
        { cause: error },
      );
    }
    throw new EngineUnavailableError(
      `memory bus: the store ${file} cannot be used (${error instanceof Error ? error.message : String(error)}); ` +
        'restore it from a backup or move it aside to start empty',
      { cause: error },
    );
  }
  const opened = db;
  return {
    db: opened,
    file,
    release: () => {
      opened.close();
      releaseLock(lockFile);
    },
  };
}

/** One process per store: a lock file with our pid; a lock left by a dead process is taken over. */
function takeLock(lockFile: string): void {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') {
        throw new EngineUnavailableError(
          `memory bus: cannot lock ${lockFile} (${codeOf(error)}): ${storeDirFix(codeOf(error))}`,
          { cause: error },
        );
      }
    }
    const holder = Number.parseInt(readLock(lockFile), 10);
    if (Number.isSafeInteger(holder) && holder > 0 && (holder === process.pid || isAlive(holder))) {
      throw new EngineUnavailableError(
        `memory bus: the store ${lockFile.replace(/bus\.lock$/, '')} is in use by process ${holder}${holder === process.pid ? ' (this one)' : ''}; ` +
          'the memory engine is single-process (stop that process, or use the jetstream engine to share a bus)',
      );
    }
    try {
      rmSync(lockFile, { force: true });
    } catch (error) {
      throw new EngineUnavailableError(
        `memory bus: cannot take over ${lockFile}, which a stopped process left (${codeOf(error)}): ${storeDirFix(codeOf(error))}`,
        { cause: error },
      );
    }
  }
  throw new EngineUnavailableError(`memory bus: cannot lock ${lockFile}`);
}

/**
 * Every file of the store this process must write (the bus's and the projections' databases with their
 * journals): one it may not is another user's (a first start as root, a volume copied with its owner),
 * which SQLite would report as a read-only or damaged database, and the fix is its owner, not a restore.
 */
function assertWritable(storeDir: string): void {
  for (const name of readdirSync(storeDir)) {
    if (!/\.sqlite(-wal|-shm)?$/.test(name)) continue;
    const path = join(storeDir, name);
    try {
      accessSync(path, constants.R_OK | constants.W_OK);
    } catch (error) {
      const code = codeOf(error);
      if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') continue;
      const owner = ownerOf(path);
      throw new EngineUnavailableError(
        `memory bus: cannot write the store file ${path} (${code})${owner}: ` +
          (code === 'EROFS'
            ? 'the file system is read-only; set stream.store_dir to a writable volume'
            : `give the store to the user the node runs as (chown -R <that user> ${storeDir}), or run the node as its owner`),
        { cause: error },
      );
    }
  }
}

/** `, owned by uid 0` — whose the file is, when this process is another user. */
function ownerOf(path: string): string {
  try {
    const { uid } = statSync(path);
    return uid === process.getuid?.() ? '' : `, owned by uid ${uid}`;
  } catch {
    return '';
  }
}

/** Removes the lock only while it still names this process. */
function releaseLock(lockFile: string): void {
  if (readLock(lockFile) === String(process.pid)) rmSync(lockFile, { force: true });
}

function readLock(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === 'EPERM';
  }
}

/**
 * What an operator does about a store directory the node cannot create or write, by the error's code: the
 * usual first-start causes are a volume owned by another user and a path that runs through a file.
 */
function storeDirFix(code: string): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'this user may not write there; make the directory writable by the user the node runs as (chown), or set stream.store_dir to a directory it may write';
    case 'EEXIST':
    case 'ENOTDIR':
      return 'a file stands where a directory is needed; set stream.store_dir to a directory (or a path to create)';
    case 'EROFS':
      return 'the file system is read-only; set stream.store_dir to a writable volume';
    default:
      return 'set stream.store_dir to a directory this user may create and write';
  }
}

function codeOf(error: unknown): string {
  return error instanceof Error && 'code' in error ? String(error.code) : 'unknown error';
}
