/**
 * Lease fencing: a holder that cannot prove its seat lease stops the seat by its own monotonic clock
 * before the lease can expire for its peers, and refuses at once after a pause, before its timers ran.
 * Two placements on one memory bus stand for two nodes; a store link that stops answering stands for
 * a partition.
 */
import { pino } from 'pino';
import t from 'tap';
import { encodeLease, placementKeys, startPlacement, type Placement } from '../../../actors/index.js';
import { ensureCatalogue, openMemoryBus, type Kv } from '../../../bus/index.js';
import type { DutyLease } from '../../../schema/index.js';

const logger = pino({ level: process.env['TEST_LOG'] ? 'debug' : 'silent' });

/** The coordination store as one node reaches it: `cut()` makes every call hang until `heal()`. */
function link(kv: Kv): { kv: Kv; cut(): void; heal(): void } {
  let gate: Promise<void> | null = null;
  let open = (): void => undefined;
  const through =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (gate) await gate;
      return call(...args);
    };
  return {
    kv: {
      name: kv.name,
      get: through((key) => kv.get(key)),
      put: through((key, value) => kv.put(key, value)),
      create: through((key, value) => kv.create(key, value)),
      update: through((key, value, revision) => kv.update(key, value, revision)),
      delete: through((key, opts) => kv.delete(key, opts)),
      keys: through((filter) => kv.keys(filter)),
      history: through((key) => kv.history(key)),
      watch: (onEntry, opts) => kv.watch(onEntry, opts),
    },
    cut: () => {
      gate ??= new Promise<void>((resolve) => (open = resolve));
    },
    heal: () => {
      gate = null;
      open();
    },
  };
}

const until = (placement: Placement, test: () => boolean): Promise<void> =>
  new Promise((resolve) => {
    if (test()) return resolve();
    placement.onChange(() => {
      if (test()) resolve();
    });
  });

const lease = { ttlMs: 900, renewEveryMs: 300, fenceMarginMs: 150 };

// Placement's timers do not hold the process open (a node's listener does): this test's wait does.
const keepAlive = setInterval(() => undefined, 60_000);
t.teardown(() => clearInterval(keepAlive));

t.test('a holder cut off from the store stops its seat before a peer may take it', async (t) => {
  const bus = await openMemoryBus({});
  const { coord } = await ensureCatalogue(bus);
  const a = link(coord);
  const timeline: string[] = [];
  const fencedAt: number[] = [];
  const nodeA = await startPlacement({
    coord: a.kv,
    nodeId: 'node-a',
    logger,
    ...lease,
    hosts: {
      idle: () => true,
      stop: () => Promise.resolve(),
      fence: (handle) => {
        fencedAt.push(Date.now());
        timeline.push(`a fenced ${handle}`);
      },
    },
  });
  await nodeA.want(['ada']);
  t.same(nodeA.held(), ['ada'], 'node-a holds the seat');
  const epoch = nodeA.epoch('ada');
  t.equal(epoch, 1);

  const nodeB = await startPlacement({ coord, nodeId: 'node-b', logger, ...lease });
  await nodeB.want(['ada']);
  t.same(nodeB.held(), [], 'the peer waits while the lease is renewed');

  a.cut();
  await until(nodeB, () => nodeB.held().includes('ada'));
  const takenAt = Date.now();
  timeline.push('b took ada');
  t.same(timeline, ['a fenced ada', 'b took ada'], 'the cut-off holder stopped before the peer took over');
  t.ok(fencedAt[0]! <= takenAt, 'fenced first');
  t.same(nodeA.held(), [], 'the fenced node no longer counts the seat as held');
  t.equal(nodeA.epoch('ada'), null, 'nor acts under its epoch');
  t.ok(nodeB.epoch('ada')! > epoch!, 'the peer holds a newer epoch, the fencing token');

  // The link comes back: the old holder's late renewal proves nothing, and the seat stays the peer's.
  a.heal();
  await nodeB.want(['ada']);
  t.same(nodeA.held(), []);
  t.same(nodeB.held(), ['ada']);

  await nodeA.stop({ release: false });
  await nodeB.stop();
  await bus.close();
});

t.test('a holder resumed from a pause refuses at once, before any timer of its own ran', async (t) => {
  const bus = await openMemoryBus({});
  const { coord } = await ensureCatalogue(bus);
  const a = link(coord);
  let pausedFor = 0;
  const monotonic = (): number => performance.now() + pausedFor;
  const fenced: string[] = [];
  const node = await startPlacement({
    coord: a.kv,
    nodeId: 'node-a',
    logger,
    ...lease,
    monotonic,
    hosts: { idle: () => true, stop: () => Promise.resolve(), fence: (handle) => fenced.push(handle) },
  });
  await node.want(['ada', 'bob']);
  t.same(node.held().sort(), ['ada', 'bob']);
  t.same(node.unproven(), {}, 'freshly proven leases are not listed');

  // As SIGSTOP then SIGCONT: the monotonic clock moved past the lease while nothing ran (and the
  // renewal that would follow cannot get through).
  a.cut();
  pausedFor = 2 * lease.ttlMs;
  t.equal(node.epoch('ada'), null, 'the synchronous check refuses before the fence timer fired');
  t.same(node.held(), [], 'and nothing reads as held');
  t.same(fenced, [], 'the timer has not run yet: the check alone refused');
  await until(node, () => fenced.length === 2);
  t.same(fenced.sort(), ['ada', 'bob'], 'then the fence timer stops both seats');
  a.heal();
  await node.stop({ release: false });
  await bus.close();
});

t.test('a held seat whose renewal is overdue is listed as unproven until it is fenced', async (t) => {
  const bus = await openMemoryBus({});
  const { coord } = await ensureCatalogue(bus);
  let skew = 0;
  const node = await startPlacement({
    coord,
    nodeId: 'node-a',
    logger,
    ttlMs: 30_000,
    renewEveryMs: 10_000,
    monotonic: () => performance.now() + skew,
  });
  await node.want(['ada']);
  skew = 12_000;
  const unproven = node.unproven();
  t.same(Object.keys(unproven), ['ada']);
  t.ok(unproven['ada']! >= 12 && unproven['ada']! < 13, `seconds since the last proof (${unproven['ada']})`);
  t.same(node.held(), ['ada'], 'still held: its fence is at 25 s');
  await node.stop({ release: false });
  await bus.close();
});

t.test('a fence margin that leaves no room for a renewal is refused', async (t) => {
  const bus = await openMemoryBus({});
  const { coord } = await ensureCatalogue(bus);
  await t.rejects(
    startPlacement({ coord, nodeId: 'n', logger, ttlMs: 900, renewEveryMs: 600, fenceMarginMs: 400 }),
    RangeError,
  );
  await bus.close();
});

t.test(
  'a holder that sees a newer epoch of its seat in the store stops at once, before its fence',
  async (t) => {
    const bus = await openMemoryBus({});
    const { coord } = await ensureCatalogue(bus);
    const fenced: string[] = [];
    const node = await startPlacement({
      coord,
      nodeId: 'node-a',
      logger,
      ttlMs: 30_000,
      renewEveryMs: 10_000,
      hosts: { idle: () => true, stop: () => Promise.resolve(), fence: (handle) => fenced.push(handle) },
    });
    await node.want(['ada']);
    t.equal(node.epoch('ada'), 1);
    // A peer's take of epoch 2, as a lease this node missed would leave it (its renewals were lost).
    const now = new Date();
    const taken: DutyLease = {
      duty: 'seat.ada',
      node: 'node-b',
      instance: 'peer',
      epoch: 2,
      acquired_at: now.toISOString(),
      renewed_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 30_000).toISOString(),
    };
    await coord.put(placementKeys.seat('ada'), encodeLease(taken));
    await until(node, () => fenced.length === 1);
    t.same(fenced, ['ada'], 'the host is stopped');
    t.equal(node.epoch('ada'), null, 'and the seat no longer acts under epoch 1');
    t.same(node.held(), []);
    await node.stop({ release: false });
    await bus.close();
  },
);
