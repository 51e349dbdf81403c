/**
 * `POST /backup?dir=` and `GET /backups` (spec read routes; ops/backups.md). Both are always guarded
 * (the guard lists them). The backup runs while the request waits: 201 with the finished record, or a
 * coded refusal (400 `backup_dir_invalid` before anything is written, 503 `backup_failed` after the copy
 * failed and its files were removed); either way the request is in `GET /backups`.
 */
import type { BackupRecord, BackupsAnswer } from '../../../schema/index.js';
import type { RouteDef } from '../../types.js';
import { singleParam } from '../single.param.js';

export interface BackupRouteDeps {
  /** Runs one backup into `dir` (the raw query value, null when absent) for the named operator. */
  run(dir: string | null, requestedBy: string): Promise<BackupRecord>;
  list(): Promise<BackupsAnswer>;
}

export function backupRoutes(deps: BackupRouteDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/backup',
      access: 'guarded',
      // A misspelt `dir` would back up into the default directory the caller did not name.
      query: ['dir'],
      handler: async (req) => {
        const dir = singleParam(req, 'dir', 'backup_dir_invalid');
        const record = await deps.run(dir, req.actor?.id ?? 'anonymous');
        return { status: 201, body: record };
      },
    },
    {
      method: 'GET',
      pattern: '/backups',
      access: 'guarded',
      query: [],
      handler: async () => ({ status: 200, body: await deps.list() }),
    },
  ];
}
