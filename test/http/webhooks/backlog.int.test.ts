import t from 'tap';
import { openMemoryBus } from '../../../bus/index.js';
import { RoutingBacklog } from '../../../http/index.js';

const enc = new TextEncoder();
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

t.test('answers wait while routing is past its high mark, and go once it catches up', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  await bus.ensureStream({ name: 'RAW', subjects: ['raw.>'] });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const routed = await bus.consume('RAW', { durable: 'routing' }, () => released);
  t.teardown(() => routed.stop());
  let reads = 0;
  const backlog = new RoutingBacklog({
    pending: async () => {
      reads += 1;
      return bus.consumerPending('RAW', 'routing');
    },
    high: 4,
    low: 2,
    maxWaitMs: 60_000,
    checkEveryMs: 1,
  });

  for (let i = 0; i < 3; i += 1) await bus.publish('raw.a', enc.encode(String(i)));
  for (const before = reads; reads < before + 3; await tick()) await backlog.wait();
  t.equal(backlog.behind, false, 'under the high mark answers do not wait');

  for (let i = 3; i < 6; i += 1) await bus.publish('raw.a', enc.encode(String(i)));
  let held: Promise<void> | null = null;
  while (held === null) {
    const answer = backlog.wait();
    if (backlog.behind) held = answer;
    else await Promise.all([answer, tick()]);
  }
  let answered = false;
  void held.then(() => (answered = true));
  for (const before = reads; reads < before + 5;) await tick();
  t.equal(answered, false, 'past the high mark an answer waits while the backlog is read again and again');
  release();
  await held;
  t.equal(backlog.behind, false, 'it went once routing caught up');
  t.ok((await bus.consumerPending('RAW', 'routing'))! < 2);
});

t.test('a backlog that never falls holds an answer for at most maxWaitMs', async (t) => {
  const backlog = new RoutingBacklog({
    pending: async () => 100,
    high: 4,
    low: 2,
    maxWaitMs: 30,
    checkEveryMs: 5,
  });
  while (!backlog.behind) await Promise.all([backlog.wait(), tick()]);
  const started = performance.now();
  await backlog.wait();
  const waited = performance.now() - started;
  t.ok(waited >= 25 && waited < 5_000, `held ${waited.toFixed(0)} ms, then answered`);
});
