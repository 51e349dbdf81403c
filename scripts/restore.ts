/**
 * `svc restore --from DIR --config FILE` (ops/backups.md): loads a backup into the fresh store the Tier A
 * file names, with the node stopped. The copy holds its own backup's record as `running` (it was taken
 * mid-run), so the restore writes that record's outcome, read from the manifest, into the restored store.
 */
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { restoreBackup } from '../bus/index.js';
import {
  BACKUP_MANIFEST,
  BackupManifest,
  BackupRecord,
  BackupStatus,
  issuesLine,
  type TierA,
} from '../schema/index.js';
import { openBackupRecords, putRecord } from './backup-wiring.js';

export class RestoreRefused extends Error {
  override name = 'RestoreRefused';
}

export interface RestoreResult {
  readonly manifest: BackupManifest;
}

export async function restoreNode(config: TierA, fromDir: string, logger: Logger): Promise<RestoreResult> {
  const from = resolve(fromDir);
  const manifestFile = join(from, BACKUP_MANIFEST);
  let raw: string;
  try {
    raw = await readFile(manifestFile, 'utf8');
  } catch {
    throw new RestoreRefused(
      `${manifestFile} cannot be read: not a finished backup (the manifest is written last)`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new RestoreRefused(`${manifestFile} is not a backup manifest: not JSON (${why})`);
  }
  const parsed = BackupManifest.safeParse(json);
  if (!parsed.success) {
    throw new RestoreRefused(`${manifestFile} is not a backup manifest: ${issuesLine(parsed.error.issues)}`);
  }
  const manifest = parsed.data;
  const queue = config.providers.queue;
  const target = {
    type: queue.type,
    url: queue.url,
    authToken: queue.auth_token,
    replicas: queue.replicas,
    storeDir: config.stream.store_dir,
    logger: logger.child({ component: 'bus' }),
  };
  // 1. the engine's data, checked against the manifest's checksums; 2. the backup's own record: done, as
  // the manifest proves. A failure in either removes what was written, so a retry finds the store fresh.
  await restoreBackup(target, { from, engine: manifest.engine, files: manifest.files }, async (bus) => {
    const kv = await openBackupRecords(bus);
    const entry = await kv.get(manifest.id);
    const prior = entry ? BackupRecord.safeParse(JSON.parse(new TextDecoder().decode(entry.value))) : null;
    const bytes = manifest.files.reduce((sum, f) => sum + f.bytes, (await stat(manifestFile)).size);
    await putRecord(kv, {
      id: manifest.id,
      requested_at: prior?.success ? prior.data.requested_at : manifest.created_at,
      requested_by: prior?.success ? prior.data.requested_by : 'unknown',
      owner: manifest.node,
      engine: manifest.engine,
      dir: prior?.success ? prior.data.dir : from,
      status: BackupStatus.Done,
      finished_at: manifest.created_at,
      error: null,
      bytes,
      streams: manifest.streams,
    });
  });
  logger.info({ event: 'restore_done', backup: manifest.id, from }, 'restore done');
  return { manifest };
}
