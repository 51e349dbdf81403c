/**
 * Request/reply on the JetStream engine: a request this process can answer is answered in the process
 * (it cannot be lost on a link to another node), and one only another process answers goes over the
 * wire with the same outcomes — the answer, the replier's error, a timeout, no responders.
 */
import t from 'tap';
import { NoRespondersError, RequestTimeoutError } from '../../bus/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { startNatsServer } from '../harness/nats-server.js';
import { startTcpProxy } from '../harness/tcp-proxy.js';
import { untilAnswered } from './contract-helpers.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

t.test('a request a replier of this process answers never leaves the process', async (t) => {
  const server = await startNatsServer({ t });
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port }, { scheme: 'nats', t });
  const bus = await openJetStreamBus({ url: proxy.url });
  t.teardown(() => bus.close());
  const replier = bus.reply('cmd.here.*', async (msg) =>
    enc.encode(`${msg.subject}:${dec.decode(msg.data)}`),
  );
  t.teardown(() => replier.stop());
  const failing = bus.reply('cmd.broken', async () => {
    throw new Error('refused: the document is invalid');
  });
  t.teardown(() => failing.stop());

  // The link goes silent (nothing arrives either way): only an answer from inside the process can come.
  proxy.blackhole();
  const answer = await bus.request('cmd.here.one', enc.encode('hi'), {
    timeoutMs: 5_000,
    headers: { 'x-trace': '1' },
  });
  t.equal(dec.decode(answer.data), 'cmd.here.one:hi', 'answered by the replier of this process');
  await t.rejects(
    bus.request('cmd.broken', enc.encode('?'), { timeoutMs: 5_000 }),
    { name: 'RemoteError', message: 'refused: the document is invalid' },
    'a replier’s error arrives as RemoteError with its message',
  );
  let release!: () => void;
  const released = new Promise<Uint8Array>((resolve) => (release = () => resolve(enc.encode('late'))));
  const slow = bus.reply('cmd.slow', () => released);
  await t.rejects(
    bus.request('cmd.slow', enc.encode('?'), { timeoutMs: 100 }),
    RequestTimeoutError,
    'no answer in time is a timeout',
  );
  proxy.restore();
  release();
  await slow.stop();

  await replier.stop();
  await t.rejects(
    bus.request('cmd.here.one', enc.encode('hi'), { timeoutMs: 10_000 }),
    NoRespondersError,
    'a stopped replier is no longer asked',
  );
});

t.test('a request only another process answers goes over the wire', async (t) => {
  const server = await startNatsServer({ t });
  const asking = await openJetStreamBus({ url: server.url });
  t.teardown(() => asking.close());
  const answering = await openJetStreamBus({ url: server.url });
  t.teardown(() => answering.close());
  const echo = answering.reply('cmd.echo', async (msg) => enc.encode(`echo:${dec.decode(msg.data)}`));
  const broken = answering.reply('cmd.broken', async () => {
    throw new Error('refused');
  });
  let release!: () => void;
  const released = new Promise<Uint8Array>((resolve) => (release = () => resolve(enc.encode('late'))));
  const slow = answering.reply('cmd.slow', () => released);
  t.teardown(async () => {
    release();
    await Promise.all([echo.stop(), broken.stop(), slow.stop()]);
  });

  // Registered last: once it answers, the repliers before it are live at the server too.
  const probe = answering.reply('cmd.probe', async () => new Uint8Array());
  t.teardown(() => probe.stop());
  await untilAnswered(asking, 'cmd.probe');
  const answer = await asking.request('cmd.echo', enc.encode('hi'), { timeoutMs: 10_000 });
  t.equal(dec.decode(answer.data), 'echo:hi', 'the other process answers');
  await t.rejects(asking.request('cmd.broken', enc.encode('?'), { timeoutMs: 10_000 }), {
    name: 'RemoteError',
    message: 'refused',
  });
  await t.rejects(asking.request('cmd.slow', enc.encode('?'), { timeoutMs: 200 }), RequestTimeoutError);
  await t.rejects(asking.request('cmd.none', enc.encode('?'), { timeoutMs: 10_000 }), NoRespondersError);
});
