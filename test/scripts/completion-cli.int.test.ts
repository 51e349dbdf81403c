/**
 * `svc completion SHELL` refusals (README "Installing the command"): a shell it has no script for is named
 * as not supported, with the ones that are; no shell at all says one is needed; a flag is named without its
 * value. Each is a usage error (exit 2) with nothing on stdout.
 */
import t from 'tap';
import { main } from '../../scripts/svc.js';

async function completion(...args: string[]) {
  let out = '';
  let err = '';
  const code = await main(
    ['completion', ...args],
    {},
    { write: (chunk: string) => ((out += chunk), true) },
    { write: (chunk: string) => ((err += chunk), true) },
  );
  return { code, out, err };
}

t.test(
  'a shell completion does not support is named as not supported, with the supported ones',
  async (t) => {
    const fish = await completion('fish');
    t.equal(fish.code, 2);
    t.equal(fish.out, '');
    t.match(fish.err, /^svc: completion for fish is not supported; the supported shells are bash and zsh\n/);
    t.notMatch(fish.err, /needs a shell/, 'a shell was given');
  },
);

t.test('no shell at all is a usage error saying one is needed', async (t) => {
  const none = await completion();
  t.equal(none.code, 2);
  t.match(none.err, /^svc: completion needs a shell: bash or zsh\n/);
});

t.test('a flag in the shell place is named without its value', async (t) => {
  const flag = await completion('--token=canary-cred');
  t.equal(flag.code, 2);
  t.match(flag.err, /unknown flag --token/);
  t.notMatch(flag.err, /canary/);
});

t.test('bash and zsh still get their scripts', async (t) => {
  for (const shell of ['bash', 'zsh']) {
    const run = await completion(shell);
    t.equal(run.code, 0, shell);
    t.match(run.out, /_svc/);
  }
});
