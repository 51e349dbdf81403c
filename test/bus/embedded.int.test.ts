/**
 * The embedded engine: a supervised local nats-server storing under the node's store directory,
 * stopped by pid on close, restarted when it dies; and the clear errors when it cannot run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { EngineUnavailableError } from '../../bus/index.js';
import { openJetStreamBus, startEmbeddedNats } from '../../bus/jetstream/index.js';
import { openBus } from '../../bus/open.js';
import { freePort } from '../harness/nats-server.js';

const enc = new TextEncoder();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

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
  t.ok(alive(server.pid), 'the server runs');
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
  t.notOk(alive(pid), 'the pid is gone after stop');
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
  t.notOk(alive(pid), 'closing the bus stopped the server');

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
