/**
 * The backup runner's failure paths on a real memory bus: a copy that fails after the directory was
 * claimed answers 503 `backup_failed` and leaves nothing behind; a run cut by a stop (its record still
 * `running`) is marked failed by the owner's next start and listed so.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { openBus } from '../../bus/index.js';
import { ApiError } from '../../http/index.js';
import { openBackupRecords, putRecord, startBackups } from '../../scripts/backup-wiring.js';

const logger = pino({ level: 'silent' });

function temp(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bkw-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('a copy that fails after the claim answers 503 backup_failed and removes what it wrote', async (t) => {
  const dir = temp(t);
  const bus = await openBus({ type: 'memory', storeDir: join(dir, 'store') });
  const backups = await startBackups({
    bus,
    nodeId: 'n1',
    version: 'test',
    storeDir: join(dir, 'store'),
    logger,
  });
  // The engine goes away under the runner (as when a drain closes the bus mid-request).
  await bus.close();
  const target = join(dir, 'bk');
  const error = await backups.run(target, 'ops').then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(error instanceof ApiError, 'a catalogued refusal, never a codeless 500');
  t.match((error as ApiError).toReply(), { status: 503, body: { error: 'backup_failed', detail: /bk/ } });
  t.notOk(existsSync(target), 'the directory the backup created is gone');
});

t.test("a backup cut by a stop is marked failed at its owner's next start", async (t) => {
  const dir = temp(t);
  const store = join(dir, 'store');
  let bus = await openBus({ type: 'memory', storeDir: store });
  const cut = {
    id: '4a3c1d2e-5f60-4b7a-8c9d-0e1f2a3b4c5d',
    requested_at: '2026-01-01T00:00:00.000Z',
    finished_at: null,
    requested_by: 'ops',
    owner: 'n1',
    engine: 'memory',
    dir: join(dir, 'cut'),
    status: 'running' as const,
    error: null,
    bytes: null,
    streams: null,
  };
  // What a node killed mid-backup leaves: its record, still running; and a peer's running one.
  const kv = await openBackupRecords(bus);
  await putRecord(kv, cut);
  await putRecord(kv, { ...cut, id: '5b4d2e3f-6071-4c8b-9dae-1f2a3b4c5d6e', owner: 'n2' });
  await bus.close();

  bus = await openBus({ type: 'memory', storeDir: store });
  t.teardown(() => bus.close());
  const backups = await startBackups({ bus, nodeId: 'n1', version: 'test', storeDir: store, logger });
  const listed = await backups.list();
  t.match(
    listed.backups.find((r) => r.id === cut.id),
    {
      status: 'failed',
      finished_at: String,
      error: { code: 'backup_failed', detail: /stopped before the backup finished/ },
    },
  );
  t.match(
    listed.backups.find((r) => r.owner === 'n2'),
    { status: 'running' },
    "another node's running backup is its own to judge",
  );
  t.same(listed.points, [], 'no finished backup, no point');

  const done = await backups.run(join(dir, 'ok'), 'ops');
  t.match(done, { status: 'done', owner: 'n1', bytes: Number });
  t.match((await backups.list()).points, [{ id: done.id }]);
});

t.test(
  "a backup cut by a stop: its owner's next start removes the files it left, so the directory takes a retry",
  async (t) => {
    const dir = temp(t);
    const store = join(dir, 'store');
    let bus = await openBus({ type: 'memory', storeDir: store });
    const id = '6c5e3f40-7182-4d9c-aebf-2a3b4c5d6e7f';
    const other = '7d6f4051-8293-4ead-bfc0-3b4c5d6e7f80';
    const cutDir = join(dir, 'cut');
    const otherDir = join(dir, 'other');
    // What a node killed mid-copy leaves: its claim marker (naming its backup) and a partial data file.
    for (const [d, claim] of [
      [cutDir, id],
      [otherDir, other],
    ] as const) {
      mkdirSync(d);
      writeFileSync(join(d, '.svc-backup-claim'), claim);
      writeFileSync(join(d, 'bus.sqlite'), 'partial');
    }
    const kv = await openBackupRecords(bus);
    await putRecord(kv, {
      id,
      requested_at: '2026-01-01T00:00:00.000Z',
      finished_at: null,
      requested_by: 'ops',
      owner: 'n1',
      engine: 'memory',
      dir: cutDir,
      status: 'running',
      error: null,
      bytes: null,
      streams: null,
    });
    await bus.close();

    bus = await openBus({ type: 'memory', storeDir: store });
    t.teardown(() => bus.close());
    const backups = await startBackups({ bus, nodeId: 'n1', version: 'test', storeDir: store, logger });
    t.same(readdirSync(cutDir), [], 'the partial copy and its claim are gone');
    t.same(
      readdirSync(otherDir).sort(),
      ['.svc-backup-claim', 'bus.sqlite'],
      "another backup's files are kept",
    );
    t.match(
      (await backups.list()).backups.find((r) => r.id === id),
      {
        status: 'failed',
        error: { code: 'backup_failed', detail: /stopped before the backup finished.*removed/ },
      },
    );
    t.match(await backups.run(cutDir, 'ops'), { status: 'done', dir: cutDir }, 'a retry into it succeeds');
  },
);
