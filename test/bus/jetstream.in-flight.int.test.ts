/**
 * `maxInFlight` on JetStream: subscribers of one durable on two clients (two nodes) share its limit, so
 * with 1 no client takes the next message while the other holds one — stream order fleet-wide (each client
 * would run two at once). Without it the next message is taken at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import type { Bus, Subscription } from '../../bus/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { startNatsServer } from '../harness/nats-server.js';

const server = await startNatsServer({ t });
const enc = new TextEncoder();

/** Both clients consume `durable`; message 1 is held by whoever takes it. The handlers' log. */
async function run(t: Test, durable: string, maxInFlight: number | undefined): Promise<string[]> {
  const clients: Bus[] = [];
  for (let i = 0; i < 2; i += 1) {
    const bus = await openJetStreamBus({ url: server.url });
    t.teardown(() => bus.close());
    clients.push(bus);
  }
  const [a] = clients as [Bus, Bus];
  await a.ensureStream({ name: `S_${durable}`, subjects: [`${durable}.>`] });
  const log: string[] = [];
  let secondStarted: () => void = () => undefined;
  const second = new Promise<void>((resolve) => (secondStarted = resolve));
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const subs: Subscription[] = [];
  for (const bus of clients) {
    subs.push(
      await bus.consume(
        `S_${durable}`,
        // Two handlers in flight per client: only the durable's limit keeps them from overlapping.
        { durable, concurrency: 2, ...(maxInFlight !== undefined ? { maxInFlight } : {}) },
        async (m) => {
          log.push(`start ${m.seq}`);
          if (m.seq === 2) secondStarted();
          // Message 1 is held until message 2 starts, or for 300 ms when the limit keeps it from starting.
          if (m.seq === 1) await Promise.race([second, sleep(maxInFlight === undefined ? 10_000 : 300)]);
          log.push(`end ${m.seq}`);
          if (log.filter((l) => l.startsWith('end')).length === 2) done();
        },
      ),
    );
  }
  await a.publish(`${durable}.x`, enc.encode('1'));
  await a.publish(`${durable}.x`, enc.encode('2'));
  await finished;
  for (const sub of subs) await sub.stop();
  return log;
}

t.test('with maxInFlight 1, no node takes the next message while another holds one', async (t) => {
  t.same(await run(t, 'ordered', 1), ['start 1', 'end 1', 'start 2', 'end 2']);
});

t.test('without it, the next message is taken at once, by either node', async (t) => {
  t.same(await run(t, 'free', undefined), ['start 1', 'start 2', 'end 2', 'end 1']);
});
