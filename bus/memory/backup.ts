/**
 * Backup and restore of the memory engine: SQLite's online backup API copies the live store page by
 * page (writes this connection makes meanwhile are carried into the copy, so the copy is one consistent
 * state), never a file copy of a WAL database. Consumer positions, dedup windows and stored times come
 * along, since they live in the same database.
 */
import Database from 'better-sqlite3';
import { copyFile, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BackupContents, BackupFile, BackupStream } from '../../schema/index.js';
import {
  codeOf,
  countsDiffer,
  describeFile,
  failRestore,
  verifyFile,
  type UndoRestore,
} from '../backup-files.js';
import { BackupError } from '../errors.js';
import type { Db } from './store.js';

/** The one data file of a memory-engine backup; also the store's own file name (store.ts). */
export const MEMORY_BACKUP_FILE = 'bus.sqlite';

/** Copies the store into `dir/bus.sqlite`, checks the copy and counts its streams. */
export async function backupMemoryStore(db: Db, dir: string): Promise<BackupContents> {
  const target = join(dir, MEMORY_BACKUP_FILE);
  try {
    await db.backup(target);
  } catch (error) {
    throw new BackupError(`memory bus: copying the store to ${target} failed (${codeOf(error)})`, {
      cause: error,
    });
  }
  let streams: BackupStream[];
  const copy = new Database(target, { timeout: 0 });
  try {
    // One self-contained file: the copy keeps no WAL beside it.
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('integrity_check', { simple: true });
    if (check !== 'ok')
      throw new BackupError(`memory bus: the copy fails its integrity check (${String(check)})`);
    streams = countStreams(copy);
  } finally {
    copy.close();
  }
  return { files: [await describeFile(dir, MEMORY_BACKUP_FILE)], streams };
}

function countStreams(db: Db): BackupStream[] {
  const rows = db
    .prepare(
      `SELECT s.name AS name, s.last_seq AS last_seq, COUNT(m.seq) AS messages, MIN(m.seq) AS first_seq
       FROM streams s LEFT JOIN messages m ON m.stream = s.name GROUP BY s.name ORDER BY s.name`,
    )
    .all() as Array<{ name: string; last_seq: number; messages: number; first_seq: number | null }>;
  return rows.map((r) => ({
    name: r.name,
    messages: r.messages,
    first_seq: r.first_seq ?? r.last_seq + 1,
    last_seq: r.last_seq,
  }));
}

/**
 * Loads a verified backup into `storeDir`, which must be absent or empty (a restore never merges into a
 * store). The node must be stopped; the restored store opens like any other. The backup's file is checked
 * where it lies and copied under a temporary name, renamed last: a refusal or a failed copy leaves the
 * store as it was, so a retry runs on the same directory.
 */
export async function restoreMemoryStore(
  from: string,
  files: readonly BackupFile[],
  streams: readonly BackupStream[],
  storeDir: string,
): Promise<UndoRestore> {
  const data = files.find((f) => f.path === MEMORY_BACKUP_FILE);
  if (!data)
    throw new BackupError(`the backup in ${from} lists no ${MEMORY_BACKUP_FILE}: not a memory-engine backup`);
  for (const file of files) await verifyFile(from, file);
  checkLoadable(join(from, MEMORY_BACKUP_FILE), streams);
  // The first directory mkdir made (undefined when the store directory was there): what an undo removes.
  let created: string | undefined;
  try {
    created = await mkdir(storeDir, { recursive: true });
  } catch (error) {
    throw new BackupError(`the store directory ${storeDir} cannot be created (${codeOf(error)})`, {
      cause: error,
    });
  }
  const undo: UndoRestore = async () => {
    if (created !== undefined) return rm(created, { recursive: true, force: true });
    // Empty when the restore began: whatever is in it now, the restore or the bus it opened wrote.
    for (const name of await readdir(storeDir))
      await rm(join(storeDir, name), { recursive: true, force: true });
  };
  const partial = join(storeDir, `.${MEMORY_BACKUP_FILE}.restoring`);
  // The partial file, created exclusively, claims the store: of two restores into one store at once, one
  // writes and the other is refused without removing anything (its undo would wipe the winner's copy).
  try {
    await (await open(partial, 'wx')).close();
  } catch (error) {
    if (codeOf(error) === 'EEXIST') {
      throw new BackupError(
        `the store directory ${storeDir} is being restored by another restore (or one cut short left ${partial}: remove it when no restore is running)`,
      );
    }
    const failed = new BackupError(`writing into ${storeDir} failed (${codeOf(error)})`, { cause: error });
    return failRestore(failed, async () => {
      if (created !== undefined) await rm(created, { recursive: true, force: true });
    });
  }
  const present = (await readdir(storeDir)).filter((name) => join(storeDir, name) !== partial);
  if (present.length > 0) {
    await rm(partial, { force: true });
    throw new BackupError(
      `the store directory ${storeDir} is not empty (${present.slice(0, 3).join(', ')}): restore into a fresh directory`,
    );
  }
  try {
    await copyFile(join(from, MEMORY_BACKUP_FILE), partial);
    await rename(partial, join(storeDir, MEMORY_BACKUP_FILE));
  } catch (error) {
    const failed = new BackupError(
      `copying ${MEMORY_BACKUP_FILE} into ${storeDir} failed (${codeOf(error)})`,
      {
        cause: error,
      },
    );
    return failRestore(failed, undo);
  }
  return undo;
}

/**
 * Refuses a backup file SQLite cannot read, a database that is not a memory-engine store, or one whose
 * streams hold other counts than the manifest's (another store swapped in): the file is what gets loaded,
 * so it is counted here, before anything is written, rather than once opened, when the bus's age limits
 * may already have trimmed an old backup's history.
 */
function checkLoadable(file: string, streams: readonly BackupStream[]): void {
  const refuse = (why: string, cause?: unknown): BackupError =>
    new BackupError(`backup file ${MEMORY_BACKUP_FILE} cannot be restored: ${why}`, { cause });
  let db: Db;
  try {
    // Read-only, in place: nothing is written anywhere before the file has proved loadable.
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: 0 });
  } catch (error) {
    throw refuse(error instanceof Error ? error.message : String(error), error);
  }
  try {
    // A small page cache: the check reads every page, and a store can be larger than memory.
    db.pragma('cache_size = 64');
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw refuse(`it fails its integrity check (${String(check)})`);
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('streams', 'messages')")
      .all();
    if (tables.length < 2) throw refuse('it is an SQLite database but not a memory-engine store');
    const held = new Map(countStreams(db).map((s) => [s.name, s.messages]));
    const differ = countsDiffer(streams, held);
    if (differ !== null)
      throw refuse(
        `its streams differ from the manifest’s counts (${differ}): not the store this backup took`,
      );
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw refuse(error instanceof Error ? error.message : String(error), error);
  } finally {
    db.close();
  }
}
