import t from 'tap';
import { openMemoryBus } from '../../../bus/index.js';
import { RoutingBacklog } from '../../../http/index.js';

const enc = new TextEncoder();
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

/** Runs `step` until `done` holds, failing after 10 s: the backlog moves on its own timer. */
async function stepUntil(done: () => boolean, step: () => Promise<unknown>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 10 s`);
    await step();
  }
}

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
  const calm = reads;
  await stepUntil(
    () => reads >= calm + 3,
    () => Promise.all([backlog.wait(), tick()]),
    'three reads',
  );
  t.equal(backlog.behind, false, 'under the high mark answers do not wait');

  for (let i = 3; i < 6; i += 1) await bus.publish('raw.a', enc.encode(String(i)));
  let held: Promise<void> | null = null;
  const heldBy = Date.now() + 10_000;
  while (held === null) {
    if (Date.now() > heldBy) throw new Error('no answer held within 10 s');
    const answer = backlog.wait();
    if (backlog.behind) held = answer;
    else await Promise.all([answer, tick()]);
  }
  let answered = false;
  void held.then(() => (answered = true));
  const heldAt = reads;
  await stepUntil(() => reads >= heldAt + 5, tick, 'five reads while held');
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
  await stepUntil(
    () => backlog.behind,
    () => Promise.all([backlog.wait(), tick()]),
    'behind',
  );
  const started = performance.now();
  await backlog.wait();
  const waited = performance.now() - started;
  t.ok(waited >= 25 && waited < 5_000, `held ${waited.toFixed(0)} ms, then answered`);
});
