import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openMemoryBus } from '../../bus/index.js';
import { runSvc } from '../harness/child.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
const configFile = (name: string, text: string): string => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

t.test('svc --help names every command and flag', async (t) => {
  const run = runSvc(['--help']);
  t.equal(await run.exited, 0);
  for (const word of ['serve', 'replay', '--help', '--version', 'SVC_CONFIG', 'SVC_NODE_ID'])
    t.match(run.stdout(), word);
});

t.test("svc help COMMAND is that command's help; a word that names none exits 2", async (t) => {
  const help = runSvc(['help', 'replay']);
  t.equal(await help.exited, 0);
  t.match(help.stdout(), '--from-seq', "replay's own help");
  const short = runSvc(['-h', 'work']);
  t.equal(await short.exited, 0);
  t.match(short.stdout(), 'svc work', "work's own help");
  const unknown = runSvc(['--help', 'launch']);
  t.equal(await unknown.exited, 2);
  t.match(unknown.stderr(), /unknown command: launch/);
  const extra = runSvc(['help', 'work', 'create']);
  t.equal(await extra.exited, 2);
  t.match(extra.stderr(), /unexpected arguments: create/);
  // `help` and `version` are words svc takes: their help is svc's own, not an unknown command.
  for (const topic of ['help', 'version']) {
    const own = runSvc(['help', topic]);
    t.equal(await own.exited, 0, `svc help ${topic}: exit 0`);
    t.match(own.stdout(), /^svc — runs one company/, `svc help ${topic}: the main help`);
  }
});

t.test('svc serve --help describes --config and the drain', async (t) => {
  const run = runSvc(['serve', '--help']);
  t.equal(await run.exited, 0);
  t.match(run.stdout(), '--config FILE');
  t.match(run.stdout(), 'SIGTERM');
});

t.test('svc replay --help describes every flag', async (t) => {
  const run = runSvc(['replay', '--help']);
  t.equal(await run.exited, 0);
  for (const flag of ['--config', '--stream', '--from-seq', '--since', '--subject', '--verify'])
    t.match(run.stdout(), flag);
});

t.test(
  "an unknown command exits 2 pointing at svc --help, an unknown flag at its subcommand's help",
  async (t) => {
    const command = runSvc(['launch']);
    t.equal(await command.exited, 2);
    t.match(command.stderr(), /unknown command: launch/);
    t.match(command.stderr(), /svc --help/);
    const flag = runSvc(['serve', '--confg', 'x.yaml']);
    t.equal(await flag.exited, 2);
    t.match(flag.stderr(), /svc serve --help/);
  },
);

t.test('serve without a configuration file exits 2 naming --config and SVC_CONFIG', async (t) => {
  const run = runSvc(['serve']);
  t.equal(await run.exited, 2);
  t.match(run.stderr(), /--config FILE or set SVC_CONFIG/);
});

t.test('a bad Tier A file is refused at start with every problem listed, exit 1', async (t) => {
  const file = configFile(
    'bad.yaml',
    'debug: sometimes\napi: {port: -1, colour: blue}\nproviders: {queue: {type: jetstream}}\n',
  );
  const run = runSvc(['serve', '--config', file]);
  t.equal(await run.exited, 1);
  const err = run.stderr();
  for (const path of ['debug', 'api.port', 'api.colour', 'providers.queue.url']) t.match(err, `  ${path}: `);
});

t.test('a token resolving empty is refused, naming the variable', async (t) => {
  const file = configFile('empty-token.yaml', 'api: {auth: {tokens: [{id: ops, token: "${SVC_TOKEN}"}]}}\n');
  const run = runSvc(['serve', '--config', file], { SVC_TOKEN: '' });
  t.equal(await run.exited, 1);
  t.match(run.stderr(), /api\.auth\.tokens\[0\]\.token: resolves empty \(\$\{SVC_TOKEN\} unset or empty\)/);
});

t.test(
  'a token shorter than 16 characters is refused at start, naming the variable, never the value',
  async (t) => {
    const file = configFile(
      'short-token.yaml',
      'api: {port: 0, auth: {tokens: [{id: ops, token: "${SVC_TOKEN}"}]}}\n',
    );
    const run = runSvc(['serve', '--config', file], { SVC_TOKEN: 'hunter2' });
    // A node that serves anyway is stopped at once rather than left running until the file's timeout.
    const served = run
      .waitForLog((line) => line.msg === 'node serving')
      .then(
        () => (run.kill(), true),
        () => false,
      );
    t.equal(await run.exited, 1);
    t.notOk(await served, 'never serves');
    t.match(
      run.stderr(),
      /api\.auth\.tokens\[0\]\.token: must be at least 16 characters \(from \$\{SVC_TOKEN\}\)/,
    );
    t.notMatch(run.stderr() + run.stdout(), /hunter2/);
  },
);

t.test('commands run with the node stopped take a token resolving empty: they serve none', async (t) => {
  const store = mkdtempSync(join(tmpdir(), 'svc-cli-offline-'));
  t.teardown(() => rmSync(store, { recursive: true, force: true }));
  // A stopped node's store: the offline commands read one and never create it.
  await (await openMemoryBus({ storeDir: store })).close();
  const file = configFile(
    'offline.yaml',
    `api: {auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}\nstream: {store_dir: ${store}}\n`,
  );
  const run = runSvc(['projections', 'list', '--config', file], { SVC_LOG_LEVEL: 'silent' });
  t.equal(await run.exited, 0, run.stderr());
  t.notMatch(run.stderr(), /resolves empty/);
  const restore = runSvc(['restore', '--from', join(store, 'no-backup'), '--config', file]);
  t.equal(await restore.exited, 1);
  t.notMatch(restore.stderr(), /resolves empty/, 'refused for the backup, not for the token');
});

t.test('a missing or unreadable file is refused with its path and the reason in words', async (t) => {
  const run = runSvc(['serve'], { SVC_CONFIG: join(dir, 'nope.yaml') });
  t.equal(await run.exited, 1);
  t.match(run.stderr(), /cannot read .*nope\.yaml \(ENOENT\): no such file/);
  const directory = runSvc(['serve'], { SVC_CONFIG: dir });
  t.equal(await directory.exited, 1);
  t.match(directory.stderr(), /\(EISDIR\): a directory, not a file/);
});

t.test('svc --version prints the package version', async (t) => {
  const run = runSvc(['--version']);
  t.equal(await run.exited, 0);
  t.match(run.stdout(), /^\d+\.\d+\.\d+/);
});
