import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { EngineUnavailableError, Retention } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { startWriter } from './fixtures/writer.js';

const tempDir = (t: Test): string => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-membus-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const refusal = (dir: string): Promise<unknown> =>
  openMemoryBus({ storeDir: dir }).then(
    async (bus) => {
      await bus.close();
      return null;
    },
    (error: unknown) => error,
  );

t.test('a store directory that does not exist yet is created', async (t) => {
  const dir = join(tempDir(t), 'a', 'b');
  const bus = await openMemoryBus({ storeDir: dir });
  await bus.ensureStream({ name: 'S', subjects: ['s.>'] });
  await bus.close();
  const again = await openMemoryBus({ storeDir: dir });
  t.equal((await again.streamInfo('S')).name, 'S');
  await again.close();
});

t.test('a corrupt store file is refused with an error naming the file and the cause', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'bus.sqlite');
  writeFileSync(file, 'this is not a database, just some bytes that are long enough '.repeat(100));
  const error = await refusal(dir);
  t.type(error, EngineUnavailableError);
  t.match((error as Error).message, file);
  t.match((error as Error).message, /cannot be used \(file is not a database\)/);
  t.ok((error as Error).cause, 'the SQLite error is kept as the cause');
  // The refused open leaves no lock behind: once the file is moved aside the store opens.
  rmSync(file);
  const bus = await openMemoryBus({ storeDir: dir });
  await bus.close();
});

t.test('a store file that cannot be opened is refused with an error naming it', async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'bus.sqlite'));
  const error = await refusal(dir);
  t.type(error, EngineUnavailableError);
  t.match((error as Error).message, join(dir, 'bus.sqlite'));
});

t.test('a second open in the same process is refused while the first holds the store', async (t) => {
  const dir = tempDir(t);
  const first = await openMemoryBus({ storeDir: dir });
  t.match(await refusal(dir), {
    name: 'EngineUnavailableError',
    message: new RegExp(`in use by process ${process.pid} \\(this one\\)`),
  });
  await first.close();
  const second = await openMemoryBus({ storeDir: dir });
  await second.close();
});

t.test('another process holding the store is named; its lock is taken over once it is dead', async (t) => {
  const dir = tempDir(t);
  const child = startWriter(dir);
  const exited = once(child, 'exit');
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ready = await lines.next();
  t.match(ready.value, /^ready /, 'the other process opened the store');

  t.match(await refusal(dir), {
    name: 'EngineUnavailableError',
    message: new RegExp(`in use by process ${child.pid}`),
  });
  // Should two processes race past the lock file, SQLite's own lock still refuses the second.
  rmSync(join(dir, 'bus.lock'));
  t.match(await refusal(dir), { name: 'EngineUnavailableError', message: /locked by another process/ });

  child.kill('SIGKILL');
  await exited;
  writeFileSync(join(dir, 'bus.lock'), String(child.pid));
  const bus = await openMemoryBus({ storeDir: dir });
  t.ok((await bus.streamInfo('CRASH')).lastSeq >= 0, 'the lock of the dead process was taken over');
  await bus.close();
});

t.test('a lock file naming a pid that no longer exists is taken over', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'bus.lock'), '999999999');
  const bus = await openMemoryBus({ storeDir: dir });
  t.equal(bus.engine, 'memory');
  await bus.close();
});

t.test('a store written by an earlier release keeps its message ids: repeats stay duplicates', async (t) => {
  const dir = tempDir(t);
  const bus = await openMemoryBus({ storeDir: dir });
  await bus.ensureStream({ name: 'S', subjects: ['s.>'], duplicateWindowMs: 3_600_000 });
  const first = await bus.publish('s.a', new TextEncoder().encode('one'), { msgId: 'delivery-1' });
  await bus.publish('s.a', new TextEncoder().encode('two'), { msgId: 'delivery-2' });
  await bus.close();
  // The earlier layout: ids in a table keyed by the id itself.
  const db = new Database(join(dir, 'bus.sqlite'));
  db.exec(`
    CREATE TABLE dedup (stream TEXT NOT NULL, msg_id TEXT NOT NULL, seq INTEGER NOT NULL, time_ms INTEGER NOT NULL,
      PRIMARY KEY (stream, msg_id)) WITHOUT ROWID;
    INSERT INTO dedup SELECT stream, msg_id, seq, time_ms FROM dedup_log;
    DROP TABLE dedup_log;
  `);
  db.close();

  const reopened = await openMemoryBus({ storeDir: dir });
  t.teardown(() => reopened.close());
  const repeat = await reopened.publish('s.a', new TextEncoder().encode('one'), { msgId: 'delivery-1' });
  t.same(repeat, { ...first, duplicate: true }, 'a repeat of an id stored before the upgrade is a duplicate');
  const fresh = await reopened.publish('s.a', new TextEncoder().encode('three'), { msgId: 'delivery-3' });
  t.equal(fresh.seq, 3, 'a new id is stored after the earlier messages');
  t.equal((await reopened.streamInfo('S')).messages, 3, 'nothing stored twice');
});

t.test('an id stored again after its window maps to its newest message across a restart', async (t) => {
  const dir = tempDir(t);
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = () => now;
  const body = new TextEncoder().encode('x');
  const bus = await openMemoryBus({ storeDir: dir, clock });
  await bus.ensureStream({ name: 'S', subjects: ['s.>'], duplicateWindowMs: 1_000 });
  await bus.publish('s.a', body, { msgId: 'a' });
  now += 2_000;
  const again = await bus.publish('s.a', body, { msgId: 'a' });
  t.equal(again.duplicate, false, 'past its window the id is stored again');
  await bus.close();

  const reopened = await openMemoryBus({ storeDir: dir, clock });
  t.teardown(() => reopened.close());
  t.same(
    await reopened.publish('s.a', body, { msgId: 'a' }),
    { ...again, duplicate: true },
    'a repeat is a duplicate of the newest message',
  );
});

t.test('the next sequence survives a restart after a batch whose messages were all removed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-membus-seq-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const bus = await openMemoryBus({ storeDir: dir });
  await bus.ensureStream({ name: 'Q', subjects: ['q.>'], retention: Retention.WorkQueue });
  // One commit: the batch's last sequence is written once, with its messages.
  const acks = await Promise.all(
    Array.from({ length: 5 }, (_, i) => bus.publish('q.a', new TextEncoder().encode(String(i)))),
  );
  t.same(
    acks.map((a) => a.seq),
    [1, 2, 3, 4, 5],
  );
  const seen: number[] = [];
  let allSeen = (): void => undefined;
  const fifth = new Promise<void>((resolve) => (allSeen = resolve));
  const sub = await bus.consume('Q', { durable: 'w', concurrency: 5 }, async (m) => {
    if (seen.push(m.seq) === 5) allSeen();
  });
  await fifth;
  // Stopping waits for the calls in flight and commits their acks.
  await sub.stop();
  t.equal((await bus.streamInfo('Q')).messages, 0, 'every message acknowledged and removed');
  await bus.close();
  const reopened = await openMemoryBus({ storeDir: dir });
  t.teardown(() => reopened.close());
  t.equal((await reopened.streamInfo('Q')).lastSeq, 5, 'the stored last sequence is the batch’s last');
  t.equal((await reopened.publish('q.a', new TextEncoder().encode('next'))).seq, 6, 'no sequence is reused');
});
