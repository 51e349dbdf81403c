/**
 * Two restores into one fresh memory store at once (ops/backups.md, restore runbook): one restores, the
 * other is refused and removes nothing of the winner's, so a restore that answered success has its store.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openBus, restoreBackup } from '../../bus/index.js';

t.test(
  'of two restores into one fresh store at once, one restores and the other leaves its copy alone',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-restore-race-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const from = join(dir, 'backup');
    const bus = await openBus({ type: 'memory', storeDir: join(dir, 'source') });
    mkdirSync(from);
    const { files, streams } = await bus.backup(from);
    await bus.close();
    // Interleavings differ from one run to the next: several rounds make the losing ones likely.
    for (let round = 0; round < 60; round++) {
      const store = join(dir, `store-${round}`);
      const one = (): Promise<string> =>
        restoreBackup({ type: 'memory', storeDir: store }, { from, engine: 'memory', files, streams }).then(
          () => 'ok',
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
      const outcomes = await Promise.all([one(), one()]);
      const held = existsSync(store) ? readdirSync(store) : [];
      if (outcomes.includes('ok'))
        t.ok(held.includes('bus.sqlite'), `round ${round}: ${outcomes.join(' / ')}`);
      else t.same(held, [], `round ${round}: both refused, the store is fresh (${outcomes.join(' / ')})`);
      t.ok(
        outcomes.filter((o) => o === 'ok').length <= 1,
        `round ${round}: at most one restore claims the store`,
      );
    }
  },
);
