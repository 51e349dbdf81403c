/**
 * The restore runbook of ops/backups.md on one real nats-server (the embedded engine's): the export keeps
 * every sequence, so the restored node reads the same configuration history and the same events. And
 * `svc restore` on an export it cannot load: refused before any stream is created, naming the file and
 * line, so a retry with a good export runs on the same server.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startNatsServer } from '../harness/nats-server.js';
import { roundTrip } from './fixtures/backup-round-trip.js';
import { makeBackup, runRestore, streamNames, tamperedCopy } from './fixtures/backup-tampered.js';

t.test('a JetStream backup restored into a fresh server serves the same /config and /events', (t) =>
  roundTrip(t, 'jetstream-embedded'),
);

t.test(
  'a checksummed export with a line that is not JSON is refused naming file and line; no stream is created',
  async (t) => {
    const source = await startNatsServer({ t });
    const good = await makeBackup(t, { type: 'jetstream', url: source.url });
    // SVC_B is exported after SVC_A: a restore that wrote as it read would have created SVC_A already.
    const bad = tamperedCopy(t, good, (copy) =>
      appendFileSync(join(copy, 'streams', 'SVC_B.jsonl'), '{"seq": 99, "subject": "x", "data": "!\n'),
    );
    const target = await startNatsServer({ t });
    const dir = mkdtempSync(join(tmpdir(), 'svc-js-restore-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const configFile = join(dir, 'config.yaml');
    writeFileSync(
      configFile,
      `providers: {queue: {type: jetstream, url: "${target.url}"}}\napi: {port: 0}\n`,
    );

    const refused = await runRestore(t, bad, configFile);
    t.equal(refused.code, 1);
    t.match(refused.stderr, /svc: backup file streams\/SVC_B\.jsonl line 4 is not JSON \(/);
    t.notMatch(refused.stderr, /^\s+at /m, 'a line, not a stack trace');
    t.same(
      (await streamNames(target.url)).filter((name) => /^(SVC_|KV_svc_)/.test(name)),
      [],
      'no stream was created',
    );

    const retry = await runRestore(t, good, configFile);
    t.equal(retry.code, 0, retry.stderr);
    t.match(JSON.parse(retry.stdout) as Record<string, unknown>, {
      engine: 'jetstream',
      streams: [{ name: 'SVC_A' }, { name: 'SVC_B' }],
    });
    t.same(await streamNames(target.url), ['KV_svc_backups', 'SVC_A', 'SVC_B']);
  },
);
