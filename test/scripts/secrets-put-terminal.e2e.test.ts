/**
 * `svc secrets put NAME` at a terminal prompts on stderr and reads one line with echo off: the typed value
 * never shows on the screen. Run in a real pseudo-terminal (util-linux `script`), keys typed only once the
 * prompt is on the screen; after the command, `stty -a` in the same terminal shows echo and line editing back.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import t, { type Test } from 'tap';
import { keyringYaml } from '../http/fixtures/secrets-node.js';
import { svcBin } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

t.setTimeout(120_000);

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `svc args` inside a pseudo-terminal, types `keys` once the prompt has been written, and resolves with
 * svc's exit code and everything the terminal showed (svc's stdout and stderr, then `stty -a`).
 */
async function atTerminal(t: Test, args: string[], keys: string): Promise<{ code: number; screen: string }> {
  const command = `${[process.execPath, svcBin, ...args].map(quote).join(' ')}; code=$?; stty -a; exit $code`;
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
    env: { PATH: process.env['PATH'], SVC_TOKEN: TOKEN, SHELL: '/bin/sh' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  });
  let screen = '';
  let typed = false;
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    if (!typed && screen.includes('(input hidden): ')) {
      typed = true;
      child.stdin.write(keys);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  child.stdin.end();
  return { code: code ?? -1, screen };
}

/** `stty -a` shows echo and canonical input on again: the terminal was given back as it was found. */
function restored(t: Test, screen: string, what: string): void {
  const stty = screen.slice(screen.indexOf('speed '));
  t.match(stty, /(^|\s)echo(\s|$)/, `${what}: echo is back on`);
  t.match(stty, /(^|\s)icanon(\s|$)/, `${what}: line editing is back on`);
}

/** `svc args` with stdin closed; stdout as the raw bytes written (a reveal's exact value). */
async function svc(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [svcBin, ...args], {
    env: { PATH: process.env['PATH'], SVC_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const out: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out: Buffer.concat(out).toString() };
}

t.test(
  'secrets put at a terminal prompts on stderr, reads one line unechoed (backspace edits it) and stores it',
  async (t) => {
    const node = await startNode(t, keyringYaml('k1', ['k1', 1]));
    const url = ['--url', node.url];
    // `hunter2-tty-valuZ`, a backspace, `e`: the stored value is `hunter2-tty-value`, no newline.
    const put = await atTerminal(t, ['secrets', 'put', 'TTY_VALUE', ...url], 'hunter2-tty-valuZ\x7fe\r');
    t.equal(put.code, 0, put.screen);
    t.match(put.screen, 'Value for TTY_VALUE (input hidden): ', 'the prompt names the secret');
    t.notMatch(put.screen, /hunter2|tty-valu/, 'no part of the typed value is on the screen');
    t.match(put.screen, /"name": ?"TTY_VALUE"/, 'the answer is printed');
    restored(t, put.screen, 'after Enter');
    const reveal = await svc(['secrets', 'reveal', 'TTY_VALUE', ...url]);
    t.equal(reveal.out, 'hunter2-tty-value', 'stored as typed, backspace applied, no newline');
    const list = await svc(['secrets', 'list', ...url]);
    t.match(JSON.parse(list.out), { secrets: [{ name: 'TTY_VALUE', source: 'cli' }] });
  },
);

t.test('at a terminal, Ctrl-C stores nothing and exits 130; an empty line is refused, exit 2', async (t) => {
  const node = await startNode(t, keyringYaml('k1', ['k1', 1]));
  const url = ['--url', node.url];
  const interrupted = await atTerminal(t, ['secrets', 'put', 'HALF_TYPED', ...url], 'half-typ\x03ed\r');
  t.equal(interrupted.code, 130, interrupted.screen);
  t.notMatch(interrupted.screen, /half|typ/, 'what was typed before Ctrl-C is not shown');
  restored(t, interrupted.screen, 'after Ctrl-C');
  const empty = await atTerminal(t, ['secrets', 'put', 'EMPTY_VALUE', ...url], '\r');
  t.equal(empty.code, 2, empty.screen);
  t.match(empty.screen, /svc secrets put: an empty value is not stored from a terminal/);
  restored(t, empty.screen, 'after an empty line');
  t.same(JSON.parse((await svc(['secrets', 'list', ...url])).out), { secrets: [] }, 'nothing stored');
});
