import t from 'tap';
import { EngineUnavailableError } from '../../bus/index.js';
import { openBus } from '../../bus/open.js';
import { startNatsServer } from '../harness/nats-server.js';

const enc = new TextEncoder();

t.test('memory opens the in-process engine', async (t) => {
  const bus = await openBus({ type: 'memory' });
  t.equal(bus.engine, 'memory');
  await bus.close();
});

t.test('jetstream connects to the configured url, with the auth token when given', async (t) => {
  const server = await startNatsServer({ t, authToken: 'tok-0123456789abcdef' });
  const bus = await openBus({ type: 'jetstream', url: server.url, authToken: 'tok-0123456789abcdef' });
  t.teardown(() => bus.close());
  t.equal(bus.engine, 'jetstream');
  await bus.ensureStream({ name: 'S', subjects: ['s.>'] });
  t.equal((await bus.publish('s.a', enc.encode('x'))).seq, 1);
  const refused = await openBus({
    type: 'jetstream',
    url: server.url,
    authToken: 'wrong-token-000000',
  }).catch((e: unknown) => e as Error);
  t.type(refused, EngineUnavailableError, 'a wrong token is refused');
  t.match((refused as Error).message, /Authorization Violation/);
  t.notMatch((refused as Error).message, /wrong-token/, 'the token is not in the message');
});

t.test('jetstream without a url and embedded without a store dir are refused by name', async (t) => {
  await t.rejects(openBus({ type: 'jetstream' }), {
    name: 'EngineUnavailableError',
    message: /providers\.queue\.url/,
  });
  await t.rejects(openBus({ type: 'jetstream-embedded' }), {
    name: 'EngineUnavailableError',
    message: /stream\.store_dir/,
  });
});

t.test('a server without JetStream is refused with a clear error', async (t) => {
  const server = await startNatsServer({ t, jetstream: false });
  await t.rejects(openBus({ type: 'jetstream', url: server.url }), {
    name: 'EngineUnavailableError',
    message: /JetStream is not available at nats:\/\/127\.0\.0\.1:\d+/,
  });
});
