/**
 * The claim on a backup directory (scripts/backup-dir.ts) under concurrency: of several requests naming one
 * directory, exactly one claims it, and a refused one never removes what the winner is writing.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ApiError } from '../../http/index.js';
import { claimBackupDir } from '../../scripts/backup-dir.js';

t.test(
  'two backups naming one absent directory: one claims it, the loser leaves the winner its files',
  async (t) => {
    const base = mkdtempSync(join(tmpdir(), 'svc-bkdir-'));
    t.teardown(() => rmSync(base, { recursive: true, force: true }));
    // The losers' refusals and the winner's claim interleave differently from round to round.
    const broken: string[] = [];
    for (let round = 0; round < 100; round += 1) {
      const dir = join(base, `r${round}`);
      const settled = await Promise.allSettled(
        ['a', 'b', 'c'].map((id) => claimBackupDir(dir, undefined, `${id}${round}`)),
      );
      const won = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      const lost = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
      if (won.length !== 1) broken.push(`round ${round}: ${won.length} claims won`);
      if (!lost.every((e) => e instanceof ApiError && e.code === 'backup_dir_invalid'))
        broken.push(`round ${round}: a loser was not refused with backup_dir_invalid`);
      // The winner goes on writing into its directory after the losers were refused.
      if (!existsSync(dir)) broken.push(`round ${round}: a refused claim removed the claimed directory`);
      else writeFileSync(join(dir, 'manifest.json'), '{}');
      await won[0]?.release();
    }
    t.same(broken, [], 'every round: one winner, its directory left to it');
  },
);
