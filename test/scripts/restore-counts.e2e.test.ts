/**
 * `svc restore` of a backup whose data is another valid store than the one its manifest counted (a
 * `bus.sqlite` swapped in, or a stream export cut short, with every size and SHA-256 redone): the manifest's
 * per-stream message counts are compared with what is loaded, and a mismatch is refused in one line, exit 1,
 * nothing left loaded. It exited 0 with other data than the backup took. On built `svc` processes.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openBus } from '../../bus/index.js';
import { storeDir } from '../harness/serve-store.js';
import { startNatsServer } from '../harness/nats-server.js';
import { makeBackup, runRestore, streamNames, tamperedCopy } from './fixtures/backup-tampered.js';

const encoder = new TextEncoder();

/** What svc itself said on stderr (its log lines are JSON): the refusal is one line. */
const said = (stderr: string): string[] => stderr.split('\n').filter((line) => line.startsWith('svc'));

/** A memory store holding SVC_A with one message, copied out as a backup's `bus.sqlite`; its path. */
async function otherStore(t: Parameters<typeof storeDir>[0]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-other-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const bus = await openBus({ type: 'memory', storeDir: join(dir, 'data') });
  try {
    await bus.ensureStream({ name: 'SVC_A', subjects: ['a.>'] });
    await bus.publish('a.x', encoder.encode('other'));
    mkdirSync(join(dir, 'backup'));
    await bus.backup(join(dir, 'backup'));
  } finally {
    await bus.close();
  }
  return join(dir, 'backup', 'bus.sqlite');
}

t.test(
  'a memory backup whose bus.sqlite is another store than its manifest counted is refused',
  async (t) => {
    const good = await makeBackup(t, { type: 'memory', storeDir: join(storeDir(t).dir, 'source') });
    const other = await otherStore(t);
    const swapped = tamperedCopy(t, good, (copy) => cpSync(other, join(copy, 'bus.sqlite')));
    const store = storeDir(t);
    writeFileSync(
      store.configFile,
      `providers: {queue: {type: memory}}\nstream: {store_dir: ${store.storeDir}}\napi: {port: 0}\n`,
    );

    const refused = await runRestore(t, swapped, store.configFile);
    t.equal(refused.code, 1, refused.stderr);
    t.equal(refused.stdout, '');
    t.same(said(refused.stderr), [
      'svc: backup file bus.sqlite cannot be restored: its streams differ from the manifest’s counts (SVC_A holds 1 message(s), the manifest says 3; SVC_B is not in it, the manifest says 3): not the store this backup took',
    ]);
    t.notMatch(refused.stderr, /^\s+at /m, 'a line, not a stack trace');
    t.notOk(existsSync(store.storeDir), 'nothing written');

    const retry = await runRestore(t, good, store.configFile);
    t.equal(retry.code, 0, retry.stderr);
  },
);

t.test(
  'a JetStream export cut short with its counts redone is refused after loading, nothing left',
  async (t) => {
    const source = await startNatsServer({ t });
    const good = await makeBackup(t, { type: 'jetstream', url: source.url });
    // The stream's own export says 2, as its lines do; the manifest still counts 3.
    const cut = tamperedCopy(t, good, (copy) => {
      const lines = join(copy, 'streams', 'SVC_B.jsonl');
      writeFileSync(lines, `${readFileSync(lines, 'utf8').trim().split('\n').slice(0, 2).join('\n')}\n`);
      const exportFile = join(copy, 'streams', 'SVC_B.json');
      const exported = JSON.parse(readFileSync(exportFile, 'utf8')) as Record<string, unknown>;
      writeFileSync(exportFile, JSON.stringify({ ...exported, messages: 2 }));
    });
    const target = await startNatsServer({ t });
    const dir = mkdtempSync(join(tmpdir(), 'svc-js-counts-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const configFile = join(dir, 'config.yaml');
    writeFileSync(
      configFile,
      `providers: {queue: {type: jetstream, url: "${target.url}"}}\napi: {port: 0}\n`,
    );

    const refused = await runRestore(t, cut, configFile);
    t.equal(refused.code, 1, refused.stderr);
    t.same(said(refused.stderr), [
      'svc: the restored streams differ from the manifest’s counts (SVC_B holds 2 message(s), the manifest says 3): not the data this backup took',
    ]);
    t.notMatch(refused.stderr, /^\s+at /m, 'a line, not a stack trace');
    t.same(
      (await streamNames(target.url)).filter((name) => /^(SVC_|KV_svc_)/.test(name)),
      [],
      'every restored stream removed',
    );

    const retry = await runRestore(t, good, configFile);
    t.equal(retry.code, 0, retry.stderr);
  },
);
