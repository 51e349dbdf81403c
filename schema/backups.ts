/**
 * Backups (spec: `POST /backup?dir=`, `GET /backups`; ops/backups.md): what an engine copies, the
 * manifest written beside the copy, the durable record of every request, and the `/backups` answer.
 */
import { z } from 'zod';

/** One file of a backup, relative to its directory, with its size and SHA-256 (hex). */
export const BackupFile = z.object({
  // Inside the backup directory: a manifest naming `../x` or `/x` is not one svc wrote (it would have a
  // restore read, and load, files from elsewhere).
  path: z
    .string()
    .min(1)
    .refine((p) => !p.startsWith('/') && !p.includes('\\') && !p.includes('\0'), 'must be a relative path')
    .refine((p) => !p.split('/').includes('..'), 'must not leave the backup directory (`..`)'),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type BackupFile = z.infer<typeof BackupFile>;

/** One stream (KV buckets are streams `KV_<bucket>`) as the copy holds it. */
export const BackupStream = z.object({
  name: z.string().min(1),
  messages: z.number().int().nonnegative(),
  first_seq: z.number().int().nonnegative(),
  last_seq: z.number().int().nonnegative(),
});
export type BackupStream = z.infer<typeof BackupStream>;

/** What an engine wrote into the backup directory (`Bus.backup`). */
export const BackupContents = z.object({
  files: z.array(BackupFile),
  streams: z.array(BackupStream),
});
export type BackupContents = z.infer<typeof BackupContents>;

export const BACKUP_FORMAT = 'svc-backup/1';
/** The manifest's file name; it is written last, so a directory without it holds no finished backup. */
export const BACKUP_MANIFEST = 'manifest.json';

export const BackupManifest = z.object({
  format: z.literal(BACKUP_FORMAT),
  id: z.uuid(),
  engine: z.enum(['memory', 'jetstream', 'jetstream-embedded']),
  node: z.string().min(1),
  version: z.string(),
  created_at: z.string(),
  /** Projection checkpoints are not copied: a restored node rebuilds them by replay. */
  checkpoints: z.literal('rebuilt_by_replay'),
  ...BackupContents.shape,
});
export type BackupManifest = z.infer<typeof BackupManifest>;

export const BackupStatus = { Running: 'running', Done: 'done', Failed: 'failed' } as const;
export type BackupStatus = (typeof BackupStatus)[keyof typeof BackupStatus];

/** The durable record of one request (bucket `svc_backups`, key = id); refused requests are recorded too. */
export const BackupRecord = z.object({
  id: z.uuid(),
  requested_at: z.string(),
  finished_at: z.string().nullable(),
  requested_by: z.string(),
  /** The node that ran (or refused) the backup; "per owner" in `/backups`. */
  owner: z.string(),
  engine: z.string(),
  dir: z.string(),
  status: z.enum([BackupStatus.Running, BackupStatus.Done, BackupStatus.Failed]),
  error: z.object({ code: z.string(), detail: z.string() }).nullable(),
  /** Bytes written (manifest included); null until done. */
  bytes: z.number().int().nonnegative().nullable(),
  streams: z.array(BackupStream).nullable(),
});
export type BackupRecord = z.infer<typeof BackupRecord>;

/** `GET /backups`: the newest finished backup of each owner, and every request newest first. */
export const BackupsAnswer = z.object({
  node: z.string(),
  points: z.array(BackupRecord),
  backups: z.array(BackupRecord),
});
export type BackupsAnswer = z.infer<typeof BackupsAnswer>;
