/**
 * Backups of one node (ops/backups.md): `POST /backup?dir=` copies the bus engine's estate into `dir`
 * and writes a manifest beside it; every request, refused and failed ones included, is a record in the
 * `svc_backups` bucket, so `GET /backups` answers across restarts and, on JetStream, across nodes.
 */
import { randomUUID } from 'node:crypto';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Buckets, type Bus, type Kv } from '../bus/index.js';
import { ApiError, backupRoutes, type RouteDef } from '../http/index.js';
import {
  BACKUP_FORMAT,
  BACKUP_MANIFEST,
  BackupRecord,
  BackupStatus,
  type BackupManifest,
  type BackupsAnswer,
} from '../schema/index.js';
import { claimBackupDir, clearAbandoned, type ClaimedDir } from './backup-dir.js';

export interface Backups {
  routes(): RouteDef[];
  /** Runs one backup (what the route calls). */
  run(dir: string | null, requestedBy: string): Promise<BackupRecord>;
  list(): Promise<BackupsAnswer>;
}

export interface BackupOptions {
  readonly bus: Bus;
  readonly nodeId: string;
  readonly version: string;
  /** `stream.store_dir`: a backup may not be written inside it. */
  readonly storeDir?: string | undefined;
  readonly logger: Logger;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Opens the bucket of backup records (one record per request, latest state only). */
export function openBackupRecords(bus: Bus): Promise<Kv> {
  return bus.kv({ name: Buckets.Backups, history: 1 });
}

export async function putRecord(kv: Kv, record: BackupRecord): Promise<void> {
  await kv.put(record.id, encoder.encode(JSON.stringify(record)));
}

/** Every readable record; one another release wrote in a shape this one cannot read is left out. */
export async function readRecords(kv: Kv): Promise<BackupRecord[]> {
  const records: BackupRecord[] = [];
  for (const key of await kv.keys()) {
    const entry = await kv.get(key);
    if (!entry) continue;
    try {
      const parsed = BackupRecord.safeParse(JSON.parse(decoder.decode(entry.value)));
      if (parsed.success) records.push(parsed.data);
    } catch {
      // not JSON: skipped like a record of another shape
    }
  }
  return records.sort((a, b) => b.requested_at.localeCompare(a.requested_at) || b.id.localeCompare(a.id));
}

export async function startBackups(opts: BackupOptions): Promise<Backups> {
  const { bus, nodeId, logger } = opts;
  const kv = await openBackupRecords(bus);
  // A record this node left running was cut by a stop or a crash: it will never finish.
  for (const record of await readRecords(kv)) {
    if (record.owner !== nodeId || record.status !== BackupStatus.Running) continue;
    // Its partial files (and claim marker) would leave the directory refused as "being written" forever.
    const cleared = await clearAbandoned(record.dir, record.id).catch((error: unknown) => {
      logger.warn({ err: error, backup: record.id, dir: record.dir }, 'partial backup files not removed');
      return false;
    });
    await putRecord(kv, {
      ...record,
      status: BackupStatus.Failed,
      finished_at: new Date().toISOString(),
      error: {
        code: 'backup_failed',
        detail: `the node stopped before the backup finished${cleared ? '; the files it had written were removed' : ''}`,
      },
    });
    logger.warn(
      { event: 'backup_abandoned', backup: record.id, dir: record.dir, cleared },
      'backup cut by a stop',
    );
  }

  const run = async (rawDir: string | null, requestedBy: string): Promise<BackupRecord> => {
    const id = randomUUID();
    const base: BackupRecord = {
      id,
      requested_at: new Date().toISOString(),
      finished_at: null,
      requested_by: requestedBy,
      owner: nodeId,
      engine: bus.engine,
      dir: rawDir ?? '',
      status: BackupStatus.Running,
      error: null,
      bytes: null,
      streams: null,
    };
    // 1. the directory: a refusal is recorded too (every requested backup is listed)
    let claimed: ClaimedDir;
    try {
      claimed = await claimBackupDir(rawDir, opts.storeDir, id);
    } catch (error) {
      if (error instanceof ApiError) {
        const refusal = error as ApiError;
        await putRecord(kv, {
          ...base,
          status: BackupStatus.Failed,
          finished_at: new Date().toISOString(),
          error: { code: refusal.code, detail: refusal.detail },
        });
        logger.warn(
          { event: 'backup_refused', backup: id, actor: requestedBy, detail: refusal.detail },
          'backup refused',
        );
      }
      throw error;
    }
    const started: BackupRecord = { ...base, dir: claimed.dir };
    try {
      await putRecord(kv, started);
      logger.info({ event: 'backup_started', backup: id, dir: claimed.dir }, 'backup started');
      // 2. the engine's copy, 3. the manifest last: its presence marks a finished backup
      const contents = await bus.backup(claimed.dir);
      const manifest: BackupManifest = {
        format: BACKUP_FORMAT,
        id,
        engine: bus.engine,
        node: nodeId,
        version: opts.version,
        created_at: new Date().toISOString(),
        checkpoints: 'rebuilt_by_replay',
        ...contents,
      };
      await claimed.release();
      const manifestFile = join(claimed.dir, BACKUP_MANIFEST);
      await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
      const bytes = contents.files.reduce((sum, f) => sum + f.bytes, (await stat(manifestFile)).size);
      const done: BackupRecord = {
        ...started,
        status: BackupStatus.Done,
        finished_at: manifest.created_at,
        bytes,
        streams: contents.streams,
      };
      await putRecord(kv, done);
      logger.info({ event: 'backup_done', backup: id, dir: claimed.dir, bytes }, 'backup done');
      return done;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      await claimed.discard().catch(() => undefined);
      logger.error({ event: 'backup_failed', backup: id, dir: claimed.dir, err: error }, 'backup failed');
      await putRecord(kv, {
        ...started,
        status: BackupStatus.Failed,
        finished_at: new Date().toISOString(),
        error: { code: 'backup_failed', detail },
      }).catch((recordError: unknown) =>
        logger.error(
          { err: recordError, backup: id },
          'backup failure not recorded (next start marks it failed)',
        ),
      );
      throw new ApiError('backup_failed', {
        detail: `backup ${id} into ${claimed.dir} failed: ${detail}`,
        cause: error,
      });
    }
  };

  const list = async (): Promise<BackupsAnswer> => {
    const backups = await readRecords(kv);
    // Newest finished backup of each owner: the point a restore of that owner's estate starts from.
    const points = new Map<string, BackupRecord>();
    for (const record of backups) {
      if (record.status === BackupStatus.Done && !points.has(record.owner)) points.set(record.owner, record);
    }
    return { node: nodeId, points: [...points.values()], backups };
  };

  return { run, list, routes: () => backupRoutes({ run, list }) };
}
