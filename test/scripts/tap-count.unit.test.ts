import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const script = fileURLToPath(new URL('../../scripts/tap-count.mjs', import.meta.url));

function count(tap: string): { stdout: string; status: number | null } {
  const run = spawnSync(process.execPath, [script], { input: tap, encoding: 'utf8' });
  return { stdout: run.stdout, status: run.status };
}

t.test('a passing run counts its tests and exits 0', async (t) => {
  const run = count(
    [
      '# Subtest: test/a.test.ts',
      '    ok 1 - one # time=1ms',
      '    ok 2 - two',
      'ok 1 - test/a.test.ts # time=3ms',
    ].join('\n'),
  );
  t.equal(run.stdout, 'tests: 2 passed, 0 failed\n');
  t.equal(run.status, 0);
});

t.test('each failure is named by file and test just above the count, and the exit is 1', async (t) => {
  const run = count(
    [
      '# Subtest: test/b.test.ts',
      '    ok 1 - fine',
      '    not ok 2 - the lease holds # time=3ms',
      '    ok 3 - later # SKIP not here',
      'not ok 1 - test/b.test.ts # time=9ms',
      'not ok 2 - test/c.test.ts # time=1ms',
    ].join('\n'),
  );
  t.equal(
    run.stdout,
    [
      'failed: test/b.test.ts > the lease holds',
      'failed: test/c.test.ts (outside its tests)',
      'tests: 1 passed, 2 failed, 1 skipped',
      '',
    ].join('\n'),
  );
  t.equal(run.status, 1);
});
