/**
 * Who owns the nats-server named by an embedded store's pid file. A node records itself as the owner
 * before it starts its server; the server's parent is that node (setpriv execs in place), so a server
 * whose parent is no longer the recorded owner was orphaned by a node that died — a previous run of
 * this store — and is stopped. A server still parented by its recorded owner belongs to a live node and
 * is refused: two servers on one store corrupt it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { EngineUnavailableError } from '../errors.js';

const OwnerRecord = z.object({ pid: z.number().int().positive() });

const ownerPath = (dataDir: string): string => join(dataDir, 'nats-server.owner');

/** Records this process as the owner of the store's server; call before spawning it. */
export function recordOwner(dataDir: string): void {
  writeFileSync(ownerPath(dataDir), `${JSON.stringify({ pid: process.pid })}\n`);
}

function readOwner(dataDir: string): number | null {
  try {
    const parsed = OwnerRecord.safeParse(JSON.parse(readFileSync(ownerPath(dataDir), 'utf8')));
    return parsed.success ? parsed.data.pid : null;
  } catch {
    return null;
  }
}

function readPidFile(pidFile: string): number | null {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** The parent pid of a live nats-server serving `dataDir` at `pid`; null for anything else (gone, zombie, reused pid). */
function serverParent(pid: number, dataDir: string): number | null {
  let argv: string[];
  let stat: string;
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // stat is "pid (comm) state ppid …"; comm may hold spaces or parentheses, so read after the last ')'.
  const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (state === 'Z' || state === 'X') return null;
  if (basename(argv[0] ?? '') !== 'nats-server') return null;
  const sd = argv.indexOf('-sd');
  if (sd < 0 || argv[sd + 1] !== dataDir) return null;
  const parent = Number(ppid);
  return Number.isInteger(parent) ? parent : null;
}

async function gone(pid: number, dataDir: string, withinMs: number): Promise<boolean> {
  const until = performance.now() + withinMs;
  // Not our child, so no exit event: watch the pid until it no longer serves this store.
  while (serverParent(pid, dataDir) !== null) {
    if (performance.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return;
    throw new EngineUnavailableError(`cannot stop the stale nats-server pid ${pid} on this store`, {
      cause: error,
    });
  }
}

/**
 * Makes the store free for a new server: nothing to do when the pid file names no live nats-server of
 * this store; stops an orphan (SIGTERM, SIGKILL after `deadlineMs`, waiting by pid); refuses a server a
 * live node supervises. Without an owner record (a server from an older release), only a server whose
 * parent is init (pid 1) counts as orphaned.
 */
export async function clearStaleServer(
  dataDir: string,
  pidFile: string,
  logger: Logger,
  deadlineMs: number,
): Promise<void> {
  const pid = readPidFile(pidFile);
  if (pid === null) return;
  const parent = serverParent(pid, dataDir);
  if (parent === null) return;
  const owner = readOwner(dataDir);
  const supervised = owner === null ? parent !== 1 : parent === owner;
  if (supervised) {
    throw new EngineUnavailableError(
      `the store ${pidFile} is already served by nats-server pid ${pid} (started by the live process ${parent}); ` +
        'stop that process first: an embedded store takes one server at a time',
    );
  }
  logger.warn({ pid, storeDir: dataDir }, 'stale embedded nats-server found; stopping it');
  signal(pid, 'SIGTERM');
  if (!(await gone(pid, dataDir, deadlineMs))) {
    signal(pid, 'SIGKILL');
    if (!(await gone(pid, dataDir, 5_000))) {
      throw new EngineUnavailableError(`the stale nats-server pid ${pid} on this store did not stop`);
    }
  }
  logger.warn({ pid, storeDir: dataDir }, 'stale embedded nats-server stopped');
}
