/**
 * A request in flight when the link to the server drops fails at once as a timeout (its outcome unknown)
 * instead of waiting out its whole timeout for an answer that went down with the server.
 */
import t from 'tap';
import { RequestTimeoutError } from '../../bus/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { startNatsServer } from '../harness/nats-server.js';
import { untilAnswered } from './contract-helpers.js';

t.test('a request whose server dies under it fails as a timeout long before its own', async (t) => {
  const server = await startNatsServer({ t });
  const bus = await openJetStreamBus({ url: server.url });
  t.teardown(() => bus.close());
  // The replier lives in another client: a request this one could answer itself never goes out.
  const other = await openJetStreamBus({ url: server.url });
  t.teardown(() => other.close());
  let asked!: () => void;
  const reached = new Promise<void>((resolve) => (asked = resolve));
  // A replier that takes the request and answers only when the test ends: the caller would wait its whole
  // timeout.
  let answer!: (data: Uint8Array) => void;
  const replier = other.reply('cmd.slow', () => {
    asked();
    return new Promise<Uint8Array>((resolve) => (answer = resolve));
  });
  t.teardown(async () => {
    answer(new Uint8Array());
    await replier.stop();
  });
  // Registered last: once it answers, the slow replier is live at the server too.
  const probe = other.reply('cmd.probe', async () => new Uint8Array());
  t.teardown(() => probe.stop());
  await untilAnswered(bus, 'cmd.probe');
  const started = Date.now();
  const request = bus.request('cmd.slow', new Uint8Array(), { timeoutMs: 60_000 });
  const failed = request.then(
    () => null,
    (error: unknown) => error,
  );
  await reached;
  await server.restart('SIGKILL');
  const error = await failed;
  t.ok(error instanceof RequestTimeoutError, 'a timeout: the outcome is unknown');
  t.match(String(error), /link to the NATS server dropped/);
  t.ok(Date.now() - started < 30_000, 'well before the request’s own 60 s');
});
