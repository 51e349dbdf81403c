/**
 * `POST /backup?dir=` and `GET /backups` on real processes (ops/backups.md): the restore runbook on the
 * memory engine, every refused directory answering a coded 400 and listed as a failed request, and
 * `svc restore` refusing a backup it cannot load with the store left fresh for a retry.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runSvc } from '../harness/child.js';
import { keyringYaml } from '../http/fixtures/secrets-node.js';
import { bootNode, storeDir, TOKEN } from '../harness/serve-store.js';
import { roundTrip } from './fixtures/backup-round-trip.js';
import { buildVersion, makeBackup, runRestore, tamperedCopy } from './fixtures/backup-tampered.js';

type Json = Record<string, unknown>;

async function json(response: Response): Promise<Json> {
  return (await response.json()) as Json;
}

t.test('a backup restored into a fresh store serves the same /config and /events', (t) =>
  roundTrip(t, 'memory'),
);

t.test('bad backup directories answer 400 backup_dir_invalid and are listed as failed', async (t) => {
  const store = storeDir(t);
  const node = await bootNode(t, store, '');
  const base = mkdtempSync(join(tmpdir(), 'svc-backups-'));
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  const full = join(base, 'full');
  mkdirSync(full);
  writeFileSync(join(full, 'keep.txt'), 'x');

  t.equal(
    (await node.call('POST', '/backup?dir=/tmp/x', { auth: null })).status,
    401,
    'token always required',
  );
  t.equal((await node.call('GET', '/backups', { auth: null })).status, 401);

  const cases: Array<[string, string | null, RegExp]> = [
    ['missing', null, /required/],
    ['relative', 'backups/today', /absolute/],
    ['not empty', full, /not empty/],
    // Nothing may be created under /proc, whoever the node runs as.
    ['not writable', '/proc/svc-backup-test', /cannot be created/],
    ['inside the store', join(store.storeDir, 'bk'), /inside the store/],
    ['inside the store, named like a parent', join(store.storeDir, '..bk'), /inside the store/],
  ];
  for (const [what, dir, detail] of cases) {
    const response = await node.call(
      'POST',
      dir === null ? '/backup' : `/backup?dir=${encodeURIComponent(dir)}`,
    );
    t.equal(response.status, 400, what);
    t.match(await json(response), { error: 'backup_dir_invalid', detail, hint: String }, what);
  }
  t.same(readFileSync(join(full, 'keep.txt'), 'utf8'), 'x', 'a refused directory is left as it was');
  t.notOk(existsSync(join(store.storeDir, 'bk')), 'nothing was created inside the store');
  t.notOk(existsSync(join(store.storeDir, '..bk')), 'nor in a child whose name starts with ..');

  const listed = await json(await node.call('GET', '/backups'));
  const rows = listed['backups'] as Json[];
  t.equal(rows.length, cases.length, 'every request is listed');
  t.ok(rows.every((r) => r['status'] === 'failed'));
  t.match(
    rows.find((r) => r['dir'] === full),
    { status: 'failed', error: { code: 'backup_dir_invalid', detail: /not empty/ } },
  );
  t.same(listed['points'], [], 'no backup point without a finished backup');
  const cli = runSvc(['backup', 'list', '--url', node.url], { SVC_TOKEN: TOKEN });
  t.teardown(() => cli.kill('SIGKILL'));
  t.equal(await cli.exited, 0, cli.stderr());
  t.same(JSON.parse(cli.stdout()), listed, 'svc backup list prints GET /backups');
  const refused = runSvc(['backup', '--dir', full, '--url', node.url], { SVC_TOKEN: TOKEN });
  t.teardown(() => refused.kill('SIGKILL'));
  t.equal(await refused.exited, 1);
  t.match(
    refused.stderr(),
    /^svc backup: 400 backup_dir_invalid: .*not empty.*\nhint: \S/,
    'the refusal carries its hint',
  );
  t.equal(await node.stop(), 0);
});

t.test('a manifest that is not one svc wrote is refused in a line that names the file and why', async (t) => {
  const store = storeDir(t);
  writeFileSync(
    store.configFile,
    `providers: {queue: {type: memory}}\nstream: {store_dir: ${store.storeDir}}\napi: {port: 0}\n`,
  );
  for (const [manifest, why] of [
    ['not json\n', /manifest\.json is not a backup manifest: not JSON \(/],
    ['{}', /manifest\.json is not a backup manifest: [a-z_]+: .*; .*\(and \d+ more\)/],
  ] as const) {
    const from = mkdtempSync(join(tmpdir(), 'svc-bad-backup-'));
    t.teardown(() => rmSync(from, { recursive: true, force: true }));
    writeFileSync(join(from, 'manifest.json'), manifest);
    const restore = runSvc(['restore', '--from', from, '--config', store.configFile]);
    t.teardown(() => restore.kill('SIGKILL'));
    t.equal(await restore.exited, 1);
    t.match(restore.stderr(), why);
    t.ok(restore.stderr().trim().split('\n').length <= 2, 'a line, not a schema dump');
  }
});

t.test(
  'a --from that is a file, not a directory, is refused as not a directory (a backup is one)',
  async (t) => {
    const store = storeDir(t);
    writeFileSync(
      store.configFile,
      `providers: {queue: {type: memory}}\nstream: {store_dir: ${store.storeDir}}\napi: {port: 0}\n`,
    );
    const dir = mkdtempSync(join(tmpdir(), 'svc-file-backup-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'backup.tar');
    writeFileSync(file, 'not a directory\n');
    const restore = runSvc(['restore', '--from', file, '--config', store.configFile]);
    t.teardown(() => restore.kill('SIGKILL'));
    t.equal(await restore.exited, 1, 'as a directory without a manifest');
    t.equal(
      restore.stderr(),
      `svc: ${file} is not a directory: a backup is the directory holding manifest.json\n`,
    );
    t.notOk(existsSync(store.storeDir), 'nothing written');
  },
);

/** A store directory and the Tier A file of a memory node on it; the directory is not created. */
function memoryStore(t: Parameters<typeof storeDir>[0]): ReturnType<typeof storeDir> {
  const store = storeDir(t);
  writeFileSync(
    store.configFile,
    `providers: {queue: {type: memory}}\nstream: {store_dir: ${store.storeDir}}\napi: {port: 0}\n`,
  );
  return store;
}

const noStackTrace = (stderr: string): boolean => !/^\s+at /m.test(stderr);

t.test(
  'a checksummed bus.sqlite that is not a database is refused naming it; the store stays fresh for a retry',
  async (t) => {
    const good = await makeBackup(t, { type: 'memory', storeDir: join(storeDir(t).dir, 'source') });
    const bad = tamperedCopy(t, good, (copy) => writeFileSync(join(copy, 'bus.sqlite'), randomBytes(4096)));
    const store = memoryStore(t);

    const absent = await runRestore(t, bad, store.configFile);
    t.equal(absent.code, 1);
    t.match(absent.stderr, /svc: backup file bus\.sqlite cannot be restored: file is not a database/);
    t.ok(noStackTrace(absent.stderr), 'a line, not a stack trace');
    t.notOk(existsSync(store.storeDir), 'an absent store directory stays absent');

    mkdirSync(store.storeDir);
    const empty = await runRestore(t, bad, store.configFile);
    t.equal(empty.code, 1);
    t.match(empty.stderr, /backup file bus\.sqlite cannot be restored/);
    t.same(readdirSync(store.storeDir), [], 'an empty store directory stays empty');

    const retry = await runRestore(t, good, store.configFile);
    t.equal(retry.code, 0, retry.stderr);
    t.match(JSON.parse(retry.stdout) as Json, {
      engine: 'memory',
      streams: [{ name: 'SVC_A' }, { name: 'SVC_B' }],
    });
  },
);

t.test(
  'a backup from a later svc release or backup format is refused; earlier and equal releases restore',
  async (t) => {
    const good = await makeBackup(t, { type: 'memory', storeDir: join(storeDir(t).dir, 'source') });
    const [major, minor] = buildVersion.split('.').map(Number) as [number, number];
    // Before 1.0 a minor release is a release line of its own (semver 0.y).
    const laterLine = major === 0 ? `0.${minor + 1}.0` : `${major + 1}.0.0`;
    const refused: Array<[string, Json, RegExp]> = [
      [
        'a later major',
        { version: '99.0.0' },
        /written by svc 99\.0\.0, a later release than this build \(svc /,
      ],
      ['a later release line', { version: laterLine }, /a later release than this build/],
      ['not a version', { version: 'dev' }, /version "dev" is not an svc version/],
      [
        'a later backup format',
        { format: 'svc-backup/2' },
        /backup format svc-backup\/2, newer than this build/,
      ],
    ];
    for (const [what, change, why] of refused) {
      const from = tamperedCopy(t, good, (_copy, manifest) => Object.assign(manifest, change));
      const store = memoryStore(t);
      const run = await runRestore(t, from, store.configFile);
      t.equal(run.code, 1, what);
      t.match(run.stderr, why, what);
      t.notOk(existsSync(store.storeDir), `${what}: nothing written`);
    }
    // Equal: the retry above. Earlier, and a later patch of this line:
    for (const version of ['0.0.1', `${major}.${minor}.999`]) {
      const from = tamperedCopy(t, good, (_copy, manifest) => Object.assign(manifest, { version }));
      const store = memoryStore(t);
      const run = await runRestore(t, from, store.configFile);
      t.equal(run.code, 0, `svc ${version} restores`, { stderr: run.stderr });
    }
  },
);

t.test(
  'the restoring keyring: an active revision it cannot open is refused, nothing written; secrets it cannot open are kept with a warning',
  async (t) => {
    const store = storeDir(t);
    const node = await bootNode(t, store, keyringYaml('k1', ['k1', 1]));
    const base = mkdtempSync(join(tmpdir(), 'svc-backups-'));
    t.teardown(() => rmSync(base, { recursive: true, force: true }));
    const backup = async (name: string): Promise<string> => {
      const dir = join(base, name);
      const response = await node.call('POST', `/backup?dir=${encodeURIComponent(dir)}`);
      t.equal(response.status, 201, name);
      return dir;
    };
    const put = await node.call('PUT', '/secrets/API_KEY', { body: 'sk-VALUE-never-shown' });
    t.equal(put.status, 200);
    const secretsOnly = await backup('secrets-only');
    const stored = await node.call('PUT', '/config', {
      body: JSON.stringify({ name: 'Acme' }),
      headers: { 'content-type': 'application/json', 'x-summary': 'first' },
    });
    t.equal(stored.status, 201);
    const sealedConfig = await backup('sealed-config');
    t.equal(await node.stop(), 0);

    const keyless = memoryStore(t);
    const refused = await runRestore(t, sealedConfig, keyless.configFile);
    t.equal(refused.code, 1);
    t.match(
      refused.stderr,
      /svc: the active revision [0-9a-f-]+ is sealed under key k1, which .* add the keys/,
    );
    t.ok(noStackTrace(refused.stderr));
    t.notOk(existsSync(keyless.storeDir), 'nothing written: the store directory stays absent');

    // The same key id with other material (a regenerated key): the fix is that id's old material, not a key to add.
    const rekeyed = memoryStore(t);
    writeFileSync(
      rekeyed.configFile,
      `${readFileSync(rekeyed.configFile, 'utf8')}${keyringYaml('k1', ['k1', 2])}\n`,
    );
    const wrongMaterial = await runRestore(t, sealedConfig, rekeyed.configFile);
    t.equal(wrongMaterial.code, 1);
    t.match(
      wrongMaterial.stderr,
      /svc: the active revision [0-9a-f-]+ is sealed under key k1, and the material secrets\.keys gives k1 does not open it: set k1's material in secrets\.keys \(.*\) back to the backed-up node's and restore again\n/,
    );
    t.ok(noStackTrace(wrongMaterial.stderr));
    t.notOk(existsSync(rekeyed.storeDir), 'nothing written: the store directory stays absent');

    // Stored secrets under that id with other material: kept, as under a missing key, but warned naming the id.
    const rekeyedSecrets = await runRestore(t, secretsOnly, rekeyed.configFile);
    t.equal(rekeyedSecrets.code, 0, rekeyedSecrets.stderr);
    t.match(
      rekeyedSecrets.stderr,
      /svc restore: WARNING: stored secrets are sealed under key ids whose material in secrets\.keys \(.*\) does not open them: key k1 \(1 secret\(s\): API_KEY\); they are kept, and open once that id's material is set back to the backed-up node's/,
    );
    t.notMatch(rekeyedSecrets.stderr, /keys secrets\.keys lacks/, 'not said to be missing');
    t.notMatch(rekeyedSecrets.stderr + rekeyedSecrets.stdout, /sk-VALUE/, 'names and key ids only');

    const warned = await runRestore(t, secretsOnly, keyless.configFile);
    t.equal(warned.code, 0, warned.stderr);
    t.match(warned.stderr, /svc restore: WARNING: .*key k1 \(1 secret\(s\): API_KEY\)/);
    t.notMatch(warned.stderr + warned.stdout, /sk-VALUE/, 'names and key ids only');

    const keyed = memoryStore(t);
    writeFileSync(
      keyed.configFile,
      `${readFileSync(keyed.configFile, 'utf8')}${keyringYaml('k1', ['k1', 1])}\n`,
    );
    const restored = await runRestore(t, sealedConfig, keyed.configFile);
    t.equal(restored.code, 0, restored.stderr);
    t.notMatch(restored.stderr, /WARNING/);
  },
);

t.test(
  'a manifest naming a file outside the backup, or a data file that is no regular file, is refused at once',
  async (t) => {
    const good = await makeBackup(t, { type: 'memory', storeDir: join(storeDir(t).dir, 'source') });
    // Both would have the restore hash an endless stream: before, it never ended. Copied by hand, not
    // with tamperedCopy, which hashes every listed file again.
    const copy = (prefix: string): string => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      t.teardown(() => rmSync(dir, { recursive: true, force: true }));
      cpSync(good, dir, { recursive: true });
      return dir;
    };
    const outside = copy('svc-bk-outside-');
    const manifest = JSON.parse(readFileSync(join(outside, 'manifest.json'), 'utf8')) as Json;
    (manifest['files'] as Json[]).push({
      path: '../../../../../../dev/zero',
      bytes: 1,
      sha256: '0'.repeat(64),
    });
    writeFileSync(join(outside, 'manifest.json'), JSON.stringify(manifest));
    const fifo = copy('svc-bk-fifo-');
    rmSync(join(fifo, 'bus.sqlite'));
    execFileSync('mkfifo', [join(fifo, 'bus.sqlite')]);
    const cases: Array<[string, string, RegExp]> = [
      ['a path with ..', outside, /files\[1\]\.path: must not leave the backup directory/],
      ['a FIFO', fifo, /backup file bus\.sqlite is not a regular file/],
    ];
    for (const [what, from, why] of cases) {
      const store = memoryStore(t);
      const run = await runRestore(t, from, store.configFile);
      t.equal(run.code, 1, what);
      t.match(run.stderr, why, what);
      t.notOk(existsSync(store.storeDir), `${what}: nothing written`);
    }
  },
);
