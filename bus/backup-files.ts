/**
 * What both engines' backups share: describing a written file (size, SHA-256), checking one on restore,
 * and undoing a restore that failed part-way.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BackupFile, BackupStream } from '../schema/index.js';
import { BackupError } from './errors.js';

/** Size and SHA-256 of `dir/path`, streamed (a store can be larger than memory). */
export async function describeFile(dir: string, path: string): Promise<BackupFile> {
  const file = join(dir, path);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return { path, bytes: (await stat(file)).size, sha256: hash.digest('hex') };
}

/** Refuses a backup file whose size or checksum differs from what the manifest says. */
export async function verifyFile(dir: string, expected: BackupFile): Promise<void> {
  let actual: BackupFile;
  try {
    // Only a regular file is hashed: a FIFO or a device (`/dev/zero` behind a symlink) would never end.
    if (!(await stat(join(dir, expected.path))).isFile()) {
      throw new BackupError(`backup file ${expected.path} is not a regular file: the copy is damaged`);
    }
    actual = await describeFile(dir, expected.path);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`backup file ${expected.path} cannot be read (${codeOf(error)})`, { cause: error });
  }
  if (actual.bytes !== expected.bytes || actual.sha256 !== expected.sha256) {
    throw new BackupError(
      `backup file ${expected.path} does not match the manifest (size or SHA-256 differs): the copy is damaged`,
    );
  }
}

export function codeOf(error: unknown): string {
  if (error instanceof Error && 'code' in error) return String(error.code);
  return error instanceof Error ? error.message : String(error);
}

/** Removes what a restore wrote, leaving the store as the restore found it (fresh), so a retry can run. */
export type UndoRestore = () => Promise<void>;

/** Undoes a failed restore and rethrows its error; an undo that fails too is said, not swallowed. */
export async function failRestore(error: unknown, undo: UndoRestore): Promise<never> {
  try {
    await undo();
  } catch (undoError) {
    const why = error instanceof Error ? error.message : String(error);
    throw new BackupError(
      `${why}; removing what the restore wrote failed too (${codeOf(undoError)}): clear the store by hand before a retry`,
      { cause: error },
    );
  }
  throw error;
}

/**
 * How the streams `held` (name -> message count) differ from the manifest's per-stream counts (the first
 * three, `;`-separated), or null
 * when they agree: checksums prove the files are the ones the manifest lists, not that they hold what it
 * counted (a store swapped in with its checksums redone). Streams the manifest does not name count too
 * when `held` lists every stream loaded.
 */
export function countsDiffer(
  manifest: readonly BackupStream[],
  held: ReadonlyMap<string, number>,
): string | null {
  const said = new Map(manifest.map((s) => [s.name, s.messages]));
  const differences: string[] = [];
  for (const [name, messages] of said) {
    const count = held.get(name);
    if (count === undefined) differences.push(`${name} is not in it, the manifest says ${messages}`);
    else if (count !== messages)
      differences.push(`${name} holds ${count} message(s), the manifest says ${messages}`);
  }
  for (const [name, count] of held) {
    if (!said.has(name))
      differences.push(`${name} holds ${count} message(s), the manifest names no such stream`);
  }
  if (differences.length === 0) return null;
  const shown = differences.slice(0, 3).join('; ');
  const more = differences.length > 3 ? `; and ${differences.length - 3} more` : '';
  return `${shown}${more}`;
}
