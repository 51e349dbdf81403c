/**
 * `svc completion SHELL` refusals (README "Installing the command"): a shell it has no script for is named
 * as not supported, with the ones that are; no shell at all says one is needed; a flag is named without its
 * value; a word after the shell is named, not dropped. Each is a usage error (exit 2) with nothing on stdout.
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

t.test('a word after the shell is a usage error, not dropped; --help there is the help', async (t) => {
  for (const extra of [
    ['bash', 'extra'],
    ['zsh', '--bogus'],
    ['bash', 'zsh'],
  ]) {
    const run = await completion(...extra);
    t.equal(run.code, 2, `${extra.join(' ')}: exit 2`);
    t.equal(run.out, '', `${extra.join(' ')}: no script printed`);
    t.match(run.err, /^svc: completion takes one shell: unexpected arguments: /, extra.join(' '));
    t.match(run.err, /Run 'svc completion --help' for usage/);
  }
  const secret = await completion('bash', '--token=canary-cred');
  t.match(secret.err, /unexpected arguments: --token\n/, 'a flag is named without its value');
  t.notMatch(secret.err, /canary/);
  const help = await completion('bash', '--help');
  t.equal(help.code, 0);
  t.match(help.out, /^Usage: svc completion bash\|zsh/);
});
