/**
 * A publish whose answer is lost — the server stored it, then the link died before the acknowledgement
 * came back, as when a stream leader is killed mid-request — does not hang for the client's 10 s API
 * timeout. A KV write is sent again at once and the repeat is recognised as the same record; a stream
 * publish without a message id fails at once with its outcome unknown.
 */
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { EngineUnavailableError, type Bus } from '../../bus/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { startNatsServer } from '../harness/nats-server.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * A proxy that, once armed, forwards the next publish whose first line matches `publishLine` and then
 * passes nothing back: the server's answer is swallowed. `cut()` ends the connections; new ones are
 * forwarded in full.
 */
async function answerSwallowingProxy(t: Test, port: number) {
  let armed: RegExp | null = null;
  let seen!: () => void;
  let sent = new Promise<void>((resolve) => (seen = resolve));
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    let swallowing = false;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      if (armed && armed.test(chunk.toString('latin1'))) {
        armed = null;
        swallowing = true;
        seen();
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!swallowing) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    url: `nats://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Swallows the answer to the next publish on a subject matching `publishLine`. */
    arm(publishLine: RegExp): Promise<void> {
      armed = publishLine;
      sent = new Promise<void>((resolve) => (seen = resolve));
      return sent;
    },
    cut(): void {
      for (const socket of sockets) socket.destroy();
    },
  };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function setup(
  t: Test,
): Promise<{ bus: Bus; direct: Bus; proxy: Awaited<ReturnType<typeof answerSwallowingProxy>> }> {
  const server = await startNatsServer({ t });
  const proxy = await answerSwallowingProxy(t, server.port);
  const bus = await openJetStreamBus({ url: proxy.url });
  t.teardown(() => bus.close());
  const direct = await openJetStreamBus({ url: server.url });
  t.teardown(() => direct.close());
  return { bus, direct, proxy };
}

t.test('a KV update whose answer was lost is sent again and counted once', async (t) => {
  const { bus, direct, proxy } = await setup(t);
  const kv = await bus.kv({ name: 'lost' });
  const seen = await direct.kv({ name: 'lost' });
  const first = await kv.create('k', enc.encode('one'));

  const stored = proxy.arm(/^H?PUB \$KV\.lost\.k /m);
  const update = kv.update('k', enc.encode('two'), first);
  const outcome = update.then(
    (revision) => ({ revision }),
    (error: unknown) => ({ error }),
  );
  await stored;
  await until(async () => (await seen.history('k')).length === 2);
  proxy.cut();

  const result = await outcome;
  t.notOk('error' in result, 'the update succeeds: its record is the one the server stored');
  const history = await seen.history('k');
  t.same(
    history.map((entry) => dec.decode(entry.value)),
    ['one', 'two'],
    'one record per write: the repeat was recognised as the same record',
  );
  t.equal(
    'revision' in result ? result.revision : 0,
    history[1]?.revision,
    'answered with the stored revision',
  );
  t.ok(await kv.update('k', enc.encode('three'), history[1]!.revision), 'the next update builds on it');
});

t.test('a stream publish without a message id fails at once when its answer is lost', async (t) => {
  const { bus, proxy } = await setup(t);
  await bus.ensureStream({ name: 'LOST', subjects: ['lost.>'] });
  const stored = proxy.arm(/^H?PUB lost\.one /m);
  const outcome = bus.publish('lost.one', enc.encode('x')).then(
    () => null,
    (error: unknown) => error,
  );
  await stored;
  proxy.cut();
  const error = await outcome;
  t.ok(error instanceof EngineUnavailableError, 'refused as the engine unavailable: the outcome is unknown');
  t.match(String(error), /link to the NATS server dropped/, 'says the link dropped, not a timeout');
});
