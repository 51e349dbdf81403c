/**
 * Loads a backup (ops/backups.md) into a fresh store of the engine a Tier A file names, offline: the
 * node is stopped. A memory-engine backup goes back into an empty `stream.store_dir`; a JetStream export
 * goes into a server (or the embedded one) holding none of svc's streams yet. A restore that fails at any
 * step removes what it wrote, so the store stays fresh and a retry (with a good backup) can run.
 */
import type { BackupFile, BackupStream } from '../schema/index.js';
import { countsDiffer, failRestore } from './backup-files.js';
import type { Bus } from './bus.js';
import { BackupError, StreamNotFoundError } from './errors.js';
import { restoreJetStream } from './jetstream/index.js';
import { restoreMemoryStore } from './memory/backup.js';
import { openBus, type OpenBusOptions } from './open.js';

export interface RestoreSource {
  /** The backup directory. */
  readonly from: string;
  /** The engine that wrote it (from its manifest). */
  readonly engine: 'memory' | 'jetstream' | 'jetstream-embedded';
  readonly files: readonly BackupFile[];
  /** The manifest's per-stream counts: what is loaded must hold them. */
  readonly streams: readonly BackupStream[];
}

/**
 * Restores `source` into `target`, then runs `finish` on the restored bus (the caller's last writes); a
 * failure in either leaves the target as it was.
 */
export async function restoreBackup(
  target: OpenBusOptions,
  source: RestoreSource,
  finish: (bus: Bus) => Promise<void> = async () => {},
): Promise<void> {
  const memory = source.engine === 'memory';
  if (memory !== (target.type === 'memory')) {
    throw new BackupError(
      `a ${source.engine} backup cannot be restored into providers.queue.type ${target.type}: ` +
        'restore into the engine that wrote it (the JetStream engines share one format)',
    );
  }
  if (memory) {
    if (!target.storeDir) throw new BackupError('restoring a memory-engine backup needs stream.store_dir');
    const undo = await restoreMemoryStore(source.from, source.files, source.streams, target.storeDir);
    try {
      const bus = await openBus(target);
      try {
        await finish(bus);
      } finally {
        await bus.close();
      }
    } catch (error) {
      await failRestore(error, undo);
    }
    return;
  }
  const bus = await openBus(target);
  try {
    const undo = await restoreJetStream(bus, source.from, source.files);
    await checkLoadedCounts(bus, source.streams).catch((error: unknown) => failRestore(error, undo));
    await finish(bus).catch((error: unknown) => failRestore(error, undo));
  } finally {
    await bus.close();
  }
}

/**
 * The streams the manifest counts, as loaded: each export's lines are checked against its own stream file,
 * but only the manifest says what the backup took, and both can be redone with their checksums.
 */
async function checkLoadedCounts(bus: Bus, streams: readonly BackupStream[]): Promise<void> {
  const held = new Map<string, number>();
  for (const { name } of streams) {
    try {
      held.set(name, (await bus.streamInfo(name)).messages);
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
  }
  const differ = countsDiffer(streams, held);
  if (differ !== null)
    throw new BackupError(
      `the restored streams differ from the manifest’s counts (${differ}): not the data this backup took`,
    );
}
