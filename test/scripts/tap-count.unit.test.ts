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
      'why: test/b.test.ts',
      '    not ok 2 - the lease holds # time=3ms',
      'why: test/c.test.ts',
      'failed: test/b.test.ts > the lease holds',
      'failed: test/c.test.ts (outside its tests)',
      'tests: 1 passed, 2 failed, 1 skipped',
      '',
    ].join('\n'),
  );
  t.equal(run.status, 1);
});

t.test(
  'above the names, each failed assertion is shown with its diagnostics, and no passing one',
  async (t) => {
    const run = count(
      [
        '# Subtest: test/d.test.ts',
        '    # Subtest: the focus follows the step',
        '        ok 1 - opened',
        '        not ok 2 - the focus is back',
        '          ---',
        '          found: BODY',
        '          wanted: Cancel run',
        '          ...',
        '        1..2',
        '    not ok 1 - the focus follows the step # time=3ms',
        '    ok 2 - fine',
        `    not ok 3 - ${'x'.repeat(400)}`,
        'not ok 1 - test/d.test.ts # time=9ms',
      ].join('\n'),
    );
    const lines = run.stdout.split('\n');
    t.same(lines.slice(0, 8), [
      'why: test/d.test.ts',
      '        not ok 2 - the focus is back',
      '          ---',
      '          found: BODY',
      '          wanted: Cancel run',
      '          ...',
      '    not ok 1 - the focus follows the step # time=3ms',
      `    not ok 3 - ${'x'.repeat(285)}…`,
    ]);
    t.notMatch(run.stdout, /opened|ok 2 - fine/, 'a passing assertion is not repeated');
    t.match(lines.at(-2), /^tests: 1 passed, 2 failed/, 'the count stays the last line');
    t.equal(run.status, 1);
  },
);
