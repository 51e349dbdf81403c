/**
 * The README's test command is the whole set-up on a fresh Debian machine: what it says `scripts/test.sh`
 * installs must be what the script installs, and the command must run as written.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { root } from '../harness/child.js';

const read = (path: string): string => readFileSync(join(root, path), 'utf8');

t.test('the README names every Debian package scripts/test.sh installs', async (t) => {
  const script = read('scripts/test.sh');
  const packages = [...script.matchAll(/^\s*apt_install\s+(.+)$/gm)].flatMap((m) =>
    m[1]!.split(/\s+/).filter((word) => !word.startsWith('-')),
  );
  t.same(
    [...packages].sort(),
    ['bubblewrap', 'chromium', 'g++', 'make', 'nats-server', 'python3'],
    'the packages the script installs',
  );
  const readme = read('README.md');
  const section = /^## The two commands\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  for (const name of packages) t.match(section, `\`${name}\``, `the README's set-up names ${name}`);
});

t.test(
  'the README test command runs as written: ./scripts/test.sh is executable and ends with the count',
  async (t) => {
    const readme = read('README.md');
    t.match(readme, /^\.\/scripts\/test\.sh\s/m, 'the command as the README gives it');
    t.doesNotThrow(() => accessSync(join(root, 'scripts', 'test.sh'), constants.X_OK), 'executable');
    const script = read('scripts/test.sh');
    t.match(script, /^#!\/usr\/bin\/env bash\n/, 'names its interpreter');
    t.match(script, /node scripts\/tap-count\.mjs/, 'prints "tests: N passed, M failed"');
    t.match(readme, '`tests: N passed, M failed`');
  },
);
