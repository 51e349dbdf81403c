/**
 * Backup and restore of the memory engine: SQLite's online backup API copies the live store page by
 * page (writes this connection makes meanwhile are carried into the copy, so the copy is one consistent
 * state), never a file copy of a WAL database. Consumer positions, dedup windows and stored times come
 * along, since they live in the same database.
 */
import Database from 'better-sqlite3';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';
import type { BackupContents, BackupFile, BackupStream } from '../../schema/index.js';
import { codeOf, describeFile, verifyFile } from '../backup-files.js';
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
 * store). The node must be stopped; the restored store opens like any other.
 */
export async function restoreMemoryStore(
  from: string,
  files: readonly BackupFile[],
  storeDir: string,
): Promise<void> {
  const data = files.find((f) => f.path === MEMORY_BACKUP_FILE);
  if (!data)
    throw new BackupError(`the backup in ${from} lists no ${MEMORY_BACKUP_FILE}: not a memory-engine backup`);
  for (const file of files) await verifyFile(from, file);
  await mkdir(storeDir, { recursive: true });
  const present = await readdir(storeDir);
  if (present.length > 0) {
    throw new BackupError(
      `the store directory ${storeDir} is not empty (${present.slice(0, 3).join(', ')}): restore into a fresh directory`,
    );
  }
  const target = join(storeDir, MEMORY_BACKUP_FILE);
  await copyFile(join(from, MEMORY_BACKUP_FILE), target, constants.COPYFILE_EXCL);
  const db = new Database(target, { timeout: 0 });
  try {
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok')
      throw new BackupError(`the restored store fails its integrity check (${String(check)})`);
  } finally {
    db.close();
  }
}
