/**
 * A server restart pauses the bus and loses nothing acknowledged: the client reconnects on its own,
 * streams, durable positions and KV revisions are the server's, consumers and followers resume.
 */
import t, { type Test } from 'tap';
import type { Bus, StoredMessage } from '../../bus/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { startNatsServer, type NatsServerHandle } from '../harness/nats-server.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A queue the test awaits item by item. */
function inbox<T>() {
  const items: T[] = [];
  const waiters: Array<(item: T) => void> = [];
  return {
    push(item: T) {
      const waiter = waiters.shift();
      if (waiter) waiter(item);
      else items.push(item);
    },
    async until(match: (item: T) => boolean, timeoutMs = 15_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const item =
          items.shift() ??
          (await new Promise<T>((resolve, reject) => {
            const timer = setTimeout(
              () => reject(new Error('nothing arrived in time')),
              deadline - Date.now(),
            );
            waiters.push((value) => {
              clearTimeout(timer);
              resolve(value);
            });
          }));
        if (match(item)) return item;
      }
    },
  };
}

/** Publishes with a message id until acknowledged: retries while reconnecting are de-duplicated. */
async function publishThroughOutage(bus: Bus, subject: string, body: string): Promise<number> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return (await bus.publish(subject, enc.encode(body), { msgId: body })).seq;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function scenario(t: Test, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  const server: NatsServerHandle = await startNatsServer({ t });
  const bus = await openJetStreamBus({ url: server.url });
  t.teardown(() => bus.close());
  await bus.ensureStream({ name: 'EVENTS', subjects: ['ev.>'] });
  for (let i = 1; i <= 100; i += 1) await bus.publish(`ev.${i % 3}`, enc.encode(String(i)));
  const kv = await bus.kv({ name: 'coord' });
  const rev1 = await kv.create('lease', enc.encode('a'));
  const rev2 = await kv.update('lease', enc.encode('b'), rev1);

  const consumed = inbox<number>();
  const consumer = await bus.consume('EVENTS', { durable: 'worker', ackWaitMs: 2_000 }, async (m) => {
    consumed.push(m.seq);
  });
  await consumed.until((seq) => seq === 100);
  const followed = inbox<StoredMessage>();
  const follower = await bus.follow('EVENTS', { fromSeq: 101 }, (m) => followed.push(m));

  // A burst of windowed publishes; the server goes down the moment the last one is acknowledged.
  const burst = await bus.ensureStream({ name: 'BURST', subjects: ['burst.>'] });
  let sent = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (sent < 2_000) {
        sent += 1;
        await bus.publish('burst.x', enc.encode('b'));
      }
    }),
  );
  await server.restart(signal);

  const seq = await publishThroughOutage(bus, 'ev.after', 'after-restart');
  t.equal(seq, 101, 'the sequence continues after the restart');
  t.match(
    await bus.streamInfo('EVENTS'),
    { firstSeq: 1, lastSeq: 101, messages: 101 },
    'every acked message kept',
  );
  const bodies: string[] = [];
  for await (const m of bus.replay('EVENTS', { toSeq: 100 })) bodies.push(dec.decode(m.data));
  t.same(
    bodies,
    Array.from({ length: 100 }, (_, i) => String(i + 1)),
    'replay reads them all, in order',
  );
  t.equal(await consumed.until((s) => s === 101), 101, 'the durable consumer resumes with the new message');
  t.equal(
    dec.decode((await followed.until((m) => m.seq === 101)).data),
    'after-restart',
    'the follower resumes',
  );

  t.equal((await bus.streamInfo(burst.name)).messages, 2_000, 'every acknowledged message of the burst kept');
  const lease = await kv.get('lease');
  t.same(
    [lease?.revision, lease && dec.decode(lease.value)],
    [rev2, 'b'],
    'the KV value and revision survive',
  );
  t.ok((await kv.update('lease', enc.encode('c'), rev2)) > rev2, 'compare-and-set keeps working');
  await consumer.stop();
  await follower.stop();
}

t.test('a graceful server restart (SIGTERM)', (t) => scenario(t, 'SIGTERM'));
t.test('a server crash and restart (SIGKILL)', (t) => scenario(t, 'SIGKILL'));
