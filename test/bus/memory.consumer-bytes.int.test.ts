import t from 'tap';
import { openMemoryBus } from '../../bus/memory/index.js';
import { IN_FLIGHT_BYTES_MAX } from '../../bus/memory/consumers.js';

/** Runs a consumer of `concurrency` over `count` messages of `size` bytes; the most handlers seen at once. */
async function mostAtOnce(count: number, size: number, concurrency: number): Promise<number> {
  const bus = await openMemoryBus();
  try {
    await bus.ensureStream({ name: 'S', subjects: ['s.>'] });
    for (let i = 0; i < count; i += 1) await bus.publish('s.a', new Uint8Array(size).fill(i));
    let running = 0;
    let most = 0;
    let done = 0;
    let finished!: () => void;
    const all = new Promise<void>((resolve) => (finished = resolve));
    const sub = await bus.consume('S', { durable: 'd', concurrency }, async () => {
      running += 1;
      most = Math.max(most, running);
      // Long enough that every call the loop may start is started before the first ends.
      await new Promise((resolve) => setTimeout(resolve, 50));
      running -= 1;
      done += 1;
      if (done === count) finished();
    });
    await all;
    await sub.stop();
    return most;
  } finally {
    await bus.close();
  }
}

t.test('a concurrent consumer runs as many small messages at once as its concurrency allows', async (t) => {
  t.equal(await mostAtOnce(12, 1024, 8), 8);
});

t.test('large messages in flight are bounded by bytes, not only by the concurrency', async (t) => {
  // Three bodies of half the bound each: two fill it, the third waits for one of them.
  const most = await mostAtOnce(3, IN_FLIGHT_BYTES_MAX / 2, 8);
  t.equal(most, 2, 'the third large body waits until one of the first two is handled');
});

t.test('a single message larger than the bound is still handled', async (t) => {
  t.equal(await mostAtOnce(2, IN_FLIGHT_BYTES_MAX + 1, 8), 1, 'one at a time, never stuck');
});
