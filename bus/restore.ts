/**
 * Loads a backup (ops/backups.md) into a fresh store of the engine a Tier A file names, offline: the
 * node is stopped. A memory-engine backup goes back into an empty `stream.store_dir`; a JetStream export
 * goes into a server (or the embedded one) holding none of svc's streams yet.
 */
import type { BackupFile } from '../schema/index.js';
import { BackupError } from './errors.js';
import { restoreJetStream } from './jetstream/index.js';
import { restoreMemoryStore } from './memory/backup.js';
import { openBus, type OpenBusOptions } from './open.js';

export interface RestoreSource {
  /** The backup directory. */
  readonly from: string;
  /** The engine that wrote it (from its manifest). */
  readonly engine: 'memory' | 'jetstream' | 'jetstream-embedded';
  readonly files: readonly BackupFile[];
}

export async function restoreBackup(target: OpenBusOptions, source: RestoreSource): Promise<void> {
  const memory = source.engine === 'memory';
  if (memory !== (target.type === 'memory')) {
    throw new BackupError(
      `a ${source.engine} backup cannot be restored into providers.queue.type ${target.type}: ` +
        'restore into the engine that wrote it (the JetStream engines share one format)',
    );
  }
  if (memory) {
    if (!target.storeDir) throw new BackupError('restoring a memory-engine backup needs stream.store_dir');
    await restoreMemoryStore(source.from, source.files, target.storeDir);
    return;
  }
  const bus = await openBus(target);
  try {
    await restoreJetStream(bus, source.from, source.files);
  } finally {
    await bus.close();
  }
}
