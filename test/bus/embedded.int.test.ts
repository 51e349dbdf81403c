/**
 * The embedded engine: a supervised local nats-server storing under the node's store directory,
 * stopped by pid on close, restarted when it dies; and the clear errors when it cannot run.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { EngineUnavailableError } from '../../bus/index.js';
import { openJetStreamBus, startEmbeddedNats } from '../../bus/jetstream/index.js';
import { openBus } from '../../bus/open.js';
import { freePort } from '../harness/nats-server.js';
import { orphanNats, running } from '../harness/orphan-nats.js';
import { isAlive } from '../harness/proc.js';

const enc = new TextEncoder();

/** A pino logger whose records a test can wait for. */
function watchedLogger() {
  const records: Array<Record<string, unknown>> = [];
  const waiters: Array<{ msg: string; resolve: () => void }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        const record = JSON.parse(line) as Record<string, unknown>;
        records.push(record);
        for (const w of [...waiters]) {
          if (record['msg'] === w.msg) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve();
          }
        }
      }
      done();
    },
  });
  return {
    records,
    logger: pino({ level: 'info' }, sink),
    waitFor(msg: string, timeoutMs = 15_000): Promise<void> {
      if (records.some((r) => r['msg'] === msg)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${msg}" logged`)), timeoutMs);
        waiters.push({
          msg,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

t.test('starts a nats-server storing under the store directory and stops its pid', async (t) => {
  const storeDir = t.testdir();
  const server = await startEmbeddedNats({ storeDir });
  t.teardown(() => server.stop());
  t.ok(isAlive(server.pid), 'the server runs');
  t.match(server.url, /^nats:\/\/127\.0\.0\.1:\d+$/);
  const bus = await openJetStreamBus({ url: server.url });
  await bus.ensureStream({ name: 'S', subjects: ['s.>'] });
  await bus.publish('s.a', enc.encode('x'));
  await bus.close();
  t.ok(
    existsSync(join(storeDir, 'jetstream', 'jetstream')),
    'JetStream data lives under <storeDir>/jetstream',
  );
  const pid = server.pid;
  await server.stop();
  t.notOk(isAlive(pid), 'the pid is gone after stop');
});

t.test('openBus jetstream-embedded: data survives a close and reopen; close stops the server', async (t) => {
  const storeDir = t.testdir();
  const pidFile = join(storeDir, 'jetstream', 'nats-server.pid');
  let bus = await openBus({ type: 'jetstream-embedded', storeDir });
  t.equal(bus.engine, 'jetstream-embedded');
  await bus.ensureStream({ name: 'S', subjects: ['s.>'] });
  await bus.publish('s.a', enc.encode('1'));
  const kv = await bus.kv({ name: 'coord' });
  const rev = await kv.create('k', enc.encode('v'));
  const pid = Number(readFileSync(pidFile, 'utf8'));
  await bus.close();
  t.notOk(isAlive(pid), 'closing the bus stopped the server');

  bus = await openBus({ type: 'jetstream-embedded', storeDir });
  t.teardown(() => bus.close());
  t.equal((await bus.publish('s.a', enc.encode('2'))).seq, 2, 'the stream continues');
  t.equal((await (await bus.kv({ name: 'coord' })).get('k'))?.revision, rev, 'the KV revision survives');
});

t.test('the supervisor restarts a server that dies, and the bus keeps working', async (t) => {
  const storeDir = t.testdir();
  const watched = watchedLogger();
  const server = await startEmbeddedNats({ storeDir, logger: watched.logger });
  t.teardown(() => server.stop());
  const bus = await openJetStreamBus({ url: server.url });
  t.teardown(() => bus.close());
  await bus.ensureStream({ name: 'S', subjects: ['s.>'] });
  await bus.publish('s.a', enc.encode('before'));
  const first = server.pid;
  process.kill(first, 'SIGKILL');
  await watched.waitFor('embedded nats-server restarted');
  t.not(server.pid, first, 'a new process serves');
  t.equal((await bus.publish('s.a', enc.encode('after'))).seq, 2, 'publishing works again');
  t.equal((await bus.streamInfo('S')).messages, 2, 'the acknowledged message survived');
});

t.test('a second server on the same store is refused', async (t) => {
  const storeDir = t.testdir();
  const server = await startEmbeddedNats({ storeDir });
  t.teardown(() => server.stop());
  await t.rejects(startEmbeddedNats({ storeDir }), {
    name: 'EngineUnavailableError',
    message: /already served/,
  });
});

for (const record of [true, false]) {
  t.test(
    `a server orphaned by a killed node is stopped at the next start and its data kept (${record ? 'owner recorded' : 'no owner record, parent init'})`,
    async (t) => {
      const storeDir = t.testdir();
      const first = await openBus({ type: 'jetstream-embedded', storeDir });
      await first.ensureStream({ name: 'S', subjects: ['s.>'] });
      await first.publish('s.a', enc.encode('before'));
      await first.close();
      if (!record) rmSync(join(storeDir, 'jetstream', 'nats-server.owner'));
      const orphan = await orphanNats(t, storeDir);

      const watched = watchedLogger();
      const server = await startEmbeddedNats({ storeDir, logger: watched.logger });
      t.teardown(() => server.stop());
      await orphan.exited;
      t.notOk(running(orphan.pid), 'the orphan is gone');
      t.ok(
        watched.records.some(
          (r) => r['msg'] === 'stale embedded nats-server stopped' && r['pid'] === orphan.pid,
        ),
        'the stop is logged with the orphan pid',
      );
      t.not(server.pid, orphan.pid);
      const bus = await openJetStreamBus({ url: server.url });
      t.teardown(() => bus.close());
      t.equal((await bus.streamInfo('S')).messages, 1, 'the message written before is still there');
    },
  );
}

t.test('a pid file naming a process that is not a nats-server of this store is left alone', async (t) => {
  const storeDir = t.testdir();
  const other = spawn('sleep', ['60'], { stdio: 'ignore' });
  t.teardown(() => other.kill('SIGKILL'));
  const pid = other.pid ?? 0;
  const first = await startEmbeddedNats({ storeDir });
  await first.stop();
  writeFileSync(join(storeDir, 'jetstream', 'nats-server.pid'), String(pid));
  const server = await startEmbeddedNats({ storeDir });
  t.teardown(() => server.stop());
  t.ok(running(pid), 'the unrelated process still runs');
  t.ok(running(server.pid), 'the server started');
});

t.test('a missing nats-server binary names the Debian package', async (t) => {
  await t.rejects(startEmbeddedNats({ storeDir: t.testdir(), binary: '/nonexistent/nats-server' }), {
    name: 'EngineUnavailableError',
    message: /apt-get install nats-server/,
  });
});

t.test('an unreachable url fails fast, naming the url and never a password', async (t) => {
  const port = await freePort();
  const started = Date.now();
  const error = await openJetStreamBus({ url: `nats://svc:s3cret@127.0.0.1:${port}` }).catch(
    (e: unknown) => e,
  );
  t.type(error, EngineUnavailableError);
  t.match((error as Error).message, `nats://127.0.0.1:${port}`);
  t.notMatch((error as Error).message, /s3cret/);
  t.ok(Date.now() - started < 5_000, 'within a few seconds');
});
