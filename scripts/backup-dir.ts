/**
 * The directory a `POST /backup` writes into: absolute, outside the store, empty (or created in an existing
 * parent), writable.
 * It is claimed with a marker file created exclusively, so two backups never write into one directory.
 */
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ApiError } from '../http/index.js';

const claimFile = '.svc-backup-claim';

export interface ClaimedDir {
  readonly dir: string;
  /** Removes the claim marker (the backup's files stay). */
  release(): Promise<void>;
  /** Removes what the backup wrote (and the directory when the claim created it). */
  discard(): Promise<void>;
}

function refuse(detail: string): ApiError<'backup_dir_invalid'> {
  return new ApiError('backup_dir_invalid', { detail });
}

function codeOf(error: unknown): string {
  return error instanceof Error && 'code' in error ? String(error.code) : String(error);
}

/** Checks `raw` and claims it for backup `id`; throws 400 `backup_dir_invalid` naming the reason. */
export async function claimBackupDir(
  raw: string | null,
  storeDir: string | undefined,
  id: string,
): Promise<ClaimedDir> {
  if (raw === null || raw.trim() === '')
    throw refuse('`dir` is required: ?dir=/absolute/path on the engine host.');
  if (raw.includes('\0')) throw refuse('`dir` contains a NUL byte.');
  // Relative to what? The node's working directory is no place an operator should have to guess.
  if (!isAbsolute(raw))
    throw refuse(`\`dir\` must be an absolute path; got ${JSON.stringify(raw.slice(0, 200))}.`);
  const dir = resolve(raw);
  if (storeDir !== undefined && inside(dir, await real(resolve(storeDir)))) {
    throw refuse(`${dir} is inside the store (stream.store_dir): a backup must live outside what it copies.`);
  }
  let created = false;
  try {
    // Only the last component: its parent must exist. (Recursive mkdir also never returns under /proc.)
    await mkdir(dir);
    created = true;
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw refuse(`${dir} cannot be created (${codeOf(error)}).`);
  }
  if (storeDir !== undefined && inside(await real(dir), await real(resolve(storeDir)))) {
    if (created) await rm(dir, { recursive: true, force: true });
    throw refuse(`${dir} is inside the store (stream.store_dir): a backup must live outside what it copies.`);
  }
  const info = await stat(dir).catch((error: unknown) => {
    throw refuse(`${dir} cannot be read (${codeOf(error)}).`);
  });
  if (!info.isDirectory()) throw refuse(`${dir} is not a directory.`);
  const present = await readdir(dir).catch((error: unknown) => {
    throw refuse(`${dir} cannot be read (${codeOf(error)}).`);
  });
  if (present.length > 0) {
    const shown = present.slice(0, 3).join(', ');
    throw refuse(
      present.includes(claimFile)
        ? `${dir} is being written by another backup.`
        : `${dir} is not empty (${shown}${present.length > 3 ? ', …' : ''}): a backup goes into an empty directory.`,
    );
  }
  const marker = join(dir, claimFile);
  try {
    // Exclusive create: of two requests that both saw the directory empty, one claims it.
    const handle = await open(marker, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
    await handle.writeFile(id);
    await handle.close();
  } catch (error) {
    // A claim that lost the race leaves the directory to the winner, even when this request created it.
    if (created && codeOf(error) !== 'EEXIST') await rm(dir, { recursive: true, force: true });
    throw refuse(
      codeOf(error) === 'EEXIST'
        ? `${dir} is being written by another backup.`
        : `${dir} is not writable by the node (${codeOf(error)}).`,
    );
  }
  return {
    dir,
    release: () => rm(marker, { force: true }),
    async discard() {
      if (created) {
        await rm(dir, { recursive: true, force: true });
        return;
      }
      for (const entry of await readdir(dir).catch(() => [])) {
        await rm(join(dir, entry), { recursive: true, force: true });
      }
    },
  };
}

/**
 * Removes what backup `id`, cut by a stop or a crash, left in `dir`: only when the claim marker there names
 * `id` (the directory was empty when claimed, so everything in it is that backup's). Without the marker
 * nothing is touched. Answers whether anything was removed.
 */
export async function clearAbandoned(dir: string, id: string): Promise<boolean> {
  if (!isAbsolute(dir)) return false;
  const claim = await readFile(join(dir, claimFile), 'utf8').catch(() => null);
  if (claim !== id) return false;
  // The marker goes last: a removal cut half-way is still recognised at the next start.
  for (const entry of await readdir(dir)) {
    if (entry !== claimFile) await rm(join(dir, entry), { recursive: true, force: true });
  }
  await rm(join(dir, claimFile), { force: true });
  return true;
}

function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  // `..bk` is a child named `..bk`; only `..` itself or `../…` climbs out.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The real path when it exists (symlinks followed), else the path as given. */
async function real(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}
