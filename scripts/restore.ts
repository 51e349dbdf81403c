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
  BACKUP_FORMAT,
  BACKUP_MANIFEST,
  BackupManifest,
  BackupRecord,
  BackupStatus,
  isRecord,
  issuesLine,
  type TierA,
} from '../schema/index.js';
import { openBackupRecords, putRecord } from './backup-wiring.js';
import { checkRestoredKeys, type KeyCheck } from './restore-keys.js';
import { packageVersion, UNKNOWN_VERSION } from './version.js';

export class RestoreRefused extends Error {
  override name = 'RestoreRefused';
}

export interface RestoreResult {
  readonly manifest: BackupManifest;
  /** Stored secrets sealed under keys the restoring keyring lacks (kept; they open once the key is added). */
  readonly missingKeys: KeyCheck['secrets'];
  /** Stored secrets under held key ids whose material does not open them (kept; they open once it is set back). */
  readonly wrongMaterial: KeyCheck['wrongMaterial'];
}

export async function restoreNode(config: TierA, fromDir: string, logger: Logger): Promise<RestoreResult> {
  const from = resolve(fromDir);
  const manifestFile = join(from, BACKUP_MANIFEST);
  // A file (an archive of a backup, say) would read as "<file>/manifest.json cannot be read".
  const kind = await stat(from).catch((error: unknown) => errorCode(error));
  // A mistyped --from is named as one, not as an unfinished backup.
  if (kind === 'ENOENT') throw new RestoreRefused(`the backup directory ${from} does not exist`);
  if (typeof kind !== 'string' && !kind.isDirectory())
    throw new RestoreRefused(
      `${from} is not a directory: a backup is the directory holding ${BACKUP_MANIFEST}`,
    );
  let raw: string;
  try {
    raw = await readFile(manifestFile, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    throw new RestoreRefused(
      code === 'ENOENT'
        ? `${manifestFile} cannot be read: not a finished backup (the manifest is written last)`
        : `${manifestFile} cannot be read (${code})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new RestoreRefused(`${manifestFile} is not a backup manifest: not JSON (${why})`);
  }
  refuseNewerFormat(json, manifestFile);
  const parsed = BackupManifest.safeParse(json);
  if (!parsed.success) {
    throw new RestoreRefused(`${manifestFile} is not a backup manifest: ${issuesLine(parsed.error.issues)}`);
  }
  const manifest = parsed.data;
  refuseNewerRelease(manifest.version, manifestFile);
  const queue = config.providers.queue;
  const target = {
    type: queue.type,
    url: queue.url,
    authToken: queue.auth_token,
    replicas: queue.replicas,
    storeDir: config.stream.store_dir,
    logger: logger.child({ component: 'bus' }),
  };
  // 1. the engine's data, checked against the manifest's checksums; 2. the keyring: an active revision it
  // cannot open is refused (the node would not start on it); 3. the backup's own record: done, as the
  // manifest proves. A failure in any removes what was written, so a retry finds the store fresh.
  let missing: KeyCheck['secrets'] = new Map();
  let wrongMaterial: KeyCheck['wrongMaterial'] = new Map();
  const source = { from, engine: manifest.engine, files: manifest.files, streams: manifest.streams };
  await restoreBackup(target, source, async (bus) => {
    const keys = await checkRestoredKeys(bus, manifest.streams, config, logger);
    if (keys.revision !== null) {
      throw new RestoreRefused(keys.revision);
    }
    missing = keys.secrets;
    wrongMaterial = keys.wrongMaterial;
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
  return { manifest, missingKeys: missing, wrongMaterial };
}

/** A later backup format (`svc-backup/2`, ...) is a newer build's: said as such, not as a schema mismatch. */
function refuseNewerFormat(json: unknown, manifestFile: string): void {
  const format = isRecord(json) ? json['format'] : undefined;
  const number = (f: unknown): number => Number(/^svc-backup\/(\d+)$/.exec(String(f))?.[1] ?? NaN);
  if (number(format) > number(BACKUP_FORMAT)) {
    throw new RestoreRefused(
      `${manifestFile} is in backup format ${String(format)}, newer than this build (svc ${packageVersion()}) reads (${BACKUP_FORMAT}): restore with the svc release that took it, or a later one`,
    );
  }
}

/**
 * A backup from a later release line than this build is refused: its streams may hold records this build
 * does not know, which it would misread or fail to replay after a "successful" restore. A release line is
 * the major version, and before 1.0 the minor too (semver: 0.y may change anything). Older and equal
 * lines restore; a later patch of the same line does too.
 */
function refuseNewerRelease(version: string, manifestFile: string): void {
  const mine = packageVersion();
  const theirs = releaseLine(version);
  const ours = releaseLine(mine);
  if (theirs === null) {
    throw new RestoreRefused(
      `${manifestFile} is not a backup manifest: version ${JSON.stringify(version)} is not an svc version (major.minor.patch)`,
    );
  }
  // A build that does not know its own version cannot judge; it restores as before.
  if (ours === null || mine === UNKNOWN_VERSION) return;
  const newer = theirs[0] > ours[0] || (theirs[0] === ours[0] && theirs[1] > ours[1]);
  if (newer) {
    throw new RestoreRefused(
      `${manifestFile} was written by svc ${version}, a later release than this build (svc ${mine}): restore with svc ${theirs[0] === 0 ? `0.${theirs[1]}` : theirs[0]}.x or later`,
    );
  }
}

/** [major, minor] for 0.y.z, [major, 0] from 1.0 on; null when `version` is not major.minor.patch. */
function releaseLine(version: string): [number, number] | null {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(version);
  if (!m) return null;
  const major = Number(m[1]);
  return major === 0 ? [0, Number(m[2])] : [major, 0];
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : String(error);
}
