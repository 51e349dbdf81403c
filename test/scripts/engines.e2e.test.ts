/**
 * The README promises Node 20: `npm ci` on it must install the locked dependency set without an
 * EBADENGINE warning (the NATS client pins @nats-io/nuid 3.0.0, which declares Node >= 22; package.json
 * overrides it to 2.0.3, the same API declaring Node >= 18).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { root } from '../harness/child.js';

t.test('npm ci of the locked dependencies warns of no unsupported engine on this Node', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-engines-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(root, file), join(dir, file));
  // A dry run resolves the whole lock and checks every engine, offline, with nothing installed.
  const run = spawnSync(
    'npm',
    [
      'ci',
      '--dry-run',
      '--offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--no-update-notifier',
      '--cache',
      join(dir, 'cache'),
    ],
    { cwd: dir, env: { PATH: process.env['PATH'], HOME: dir }, encoding: 'utf8', timeout: 60_000 },
  );
  if (run.status !== 0) t.comment(run.stderr);
  t.equal(run.status, 0, 'the locked set resolves');
  t.match(run.stdout, /added \d+ packages/, 'the lock was resolved');
  t.notMatch(`${run.stdout}${run.stderr}`, /EBADENGINE/, `no package refuses Node ${process.version}`);
});
