/**
 * A start `svc serve` refuses is said on stderr and, for operators who read the node's JSON log, as one pino
 * line at level fatal (event `serve_refused`) with the same message, before exit 1. A secret value never shows.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { freePort, runSvc, type SvcChild } from '../harness/child.js';

const FATAL = 60;

/** The child's one fatal line, checked against what it said on stderr. */
async function refusal(t: Test, run: SvcChild, stderr: RegExp): Promise<void> {
  t.equal(await run.exited, 1, 'exit 1');
  t.match(run.stderr(), stderr, 'said on stderr');
  const fatal = run.lines.filter((line) => line.level === FATAL);
  t.equal(fatal.length, 1, 'one fatal line on stdout');
  t.equal(fatal[0]?.['event'], 'serve_refused');
  // The same message: stderr's text after the command's prefix.
  t.equal(
    fatal[0]?.msg,
    run
      .stderr()
      .trimEnd()
      .replace(/^svc( serve)?: /, ''),
  );
  t.ok(
    run
      .stdout()
      .trim()
      .split('\n')
      .every((text) => text.startsWith('{')),
    'stdout holds JSON lines only',
  );
}

t.test('a refused Tier A file: keyring material missing or malformed, never its value', async (t) => {
  const dir = t.testdir({
    'config.yaml': [
      `api: {host: 127.0.0.1, port: ${await freePort()}}`,
      'secrets: {active_key_id: k1, keys: [{id: k1, material: "${SVC_KEY}"}]}',
    ].join('\n'),
  });
  const unset = runSvc(['serve', '--config', join(dir, 'config.yaml')], {});
  await refusal(t, unset, /refused:\n.*secrets\.keys\[0\]\.material.*\$\{SVC_KEY\}, unset or empty/);
  t.equal(unset.lines[0]?.['node'], null, 'no node id: the file that names it was refused');

  const secret = 'not-32-bytes-of-key-material-shh';
  const short = runSvc(['serve', '--config', join(dir, 'config.yaml')], { SVC_KEY: secret });
  await refusal(t, short, /secrets\.keys\[0\]\.material/);
  t.notMatch(short.stdout() + short.stderr(), secret, 'the value is in neither stream');
});

t.test(
  'a NATS url and token under the default memory engine: refused naming both keys and the file, never the token',
  async (t) => {
    const dir = t.testdir({
      'config.yaml': [
        'providers: {queue: {url: "nats://10.0.0.5:4222", auth_token: "${SVC_NATS_TOKEN}"}}',
        'api: {port: 0}',
      ].join('\n'),
    });
    const file = join(dir, 'config.yaml');
    const token = 'nats-token-never-shown-0123';
    const run = runSvc(['serve', '--config', file], { SVC_NATS_TOKEN: token });
    await refusal(
      t,
      run,
      /refused:\n\s+1:\d+\s+providers\.queue\.url: read only when providers\.queue\.type is jetstream, and the type is memory.*\n\s+1:\d+\s+providers\.queue\.auth_token: /,
    );
    t.match(run.stderr(), `configuration ${file} refused`, 'the file is named');
    t.notMatch(run.stdout() + run.stderr(), token, 'the token is in neither stream');
  },
);

t.test('a port in use', async (t) => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.teardown(() => holder.close());
  const port = (holder.address() as { port: number }).port;
  const dir = t.testdir({ 'config.yaml': `node: {id: busy-1}\napi: {host: 127.0.0.1, port: ${port}}\n` });
  const run = runSvc(['serve', '--config', join(dir, 'config.yaml')], {}, dir);
  await refusal(t, run, new RegExp(`^svc serve: cannot listen on 127\\.0\\.0\\.1:${port}: .*in use`));
  const fatal = run.lines.find((line) => line.level === FATAL);
  t.equal(fatal?.['node'], 'busy-1', 'the line names the node');
  t.notOk(
    run.lines.some((line) => line.level >= 50 && line.level < FATAL),
    'no second line at error for the same refusal',
  );
});

t.test('a start the node itself refuses (a store directory it cannot make)', async (t) => {
  const dir = t.testdir({
    occupied: 'a file, not a directory\n',
    'config.yaml': 'api: {port: 0}\nstream: {store_dir: ./occupied/data}\n',
  });
  const run = runSvc(['serve', '--config', join(dir, 'config.yaml')], {}, dir);
  await refusal(t, run, /^svc: .*cannot create the store directory/);
});

t.test('an unreadable --company file', async (t) => {
  const dir = t.testdir({ 'config.yaml': 'api: {port: 0}\n' });
  const run = runSvc(
    ['serve', '--config', join(dir, 'config.yaml'), '--company', join(dir, 'missing.yaml')],
    {},
    dir,
  );
  await refusal(t, run, /^svc: --company \S+missing\.yaml: cannot read it \(ENOENT\)/);
});
