/**
 * Seat placement across nodes: two seats runtimes on one shared memory bus stand for two `seats`
 * nodes. Each agent seat is a lease in `svc_coord`; a wake runs only where its seat's lease is held.
 * These: a seat's lease epoch across processes of one node id, and a host starting while its seat is
 * fenced, taken again or stopped.
 */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import t from 'tap';
import { placementKeys, readLease, seatKeys } from '../../../actors/index.js';
import { KvConflictError, type Bus, type Kv } from '../../../bus/index.js';
import { completedOf, nodeOf, startFleet, type Node } from './placement.fixture.js';

/** A step the test lets go of when it chooses: `reached` resolves once the step waits on it. */
function heldStep(): { reached: Promise<void>; arrive(): void; wait: Promise<void>; release(): void } {
  let arrive!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const wait = new Promise<void>((resolve) => (release = resolve));
  return { reached, arrive, wait, release };
}

/** `target` with `name` replaced; everything else bound to it. */
function wrap<T extends object>(target: T, name: keyof T, replacement: unknown): T {
  return new Proxy(target, {
    get(obj, prop) {
      if (prop === name) return replacement;
      const value = Reflect.get(obj, prop, obj) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(obj) : value;
    },
  });
}

type Line = Record<string, unknown> & { msg: string };

/** A logger whose lines a test can wait for (a step held mid-apply leaves no other sign). */
function logLines(): { logger: Logger; line(match: (line: Line) => boolean): Promise<void> } {
  const seen: Line[] = [];
  const waiting: { match: (line: Line) => boolean; resolve: () => void }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = JSON.parse(chunk.toString()) as Line;
      seen.push(line);
      for (const w of waiting) if (w.match(line)) w.resolve();
      done();
    },
  });
  return {
    logger: pino({ level: 'info' }, sink),
    line: (match) =>
      seen.some(match) ? Promise.resolve() : new Promise((resolve) => waiting.push({ match, resolve })),
  };
}

/** Resolves once `check` holds, looked at after every change of the node's seats. */
const once = (node: Node, check: () => boolean): Promise<void> =>
  new Promise((resolve) => {
    if (check()) return resolve();
    node.runtime.onSeatsChanged(() => {
      if (check()) resolve();
    });
  });

/** Resolves after `count` more writes to `key` (renewals) than it had when called. */
async function writesTo(coord: Kv, key: string, count: number): Promise<void> {
  const start = (await coord.get(key))!.revision;
  let seen = 0;
  let done!: () => void;
  const written = new Promise<void>((resolve) => (done = resolve));
  const sub = await coord.watch(
    (entry) => {
      if (entry.revision > start) seen += 1;
      if (seen === count) done();
    },
    { key, initial: false },
  );
  await written;
  await sub.stop();
}

/**
 * Rewrites the seat's lease record with `change`, compare-and-set. The holder renews every 50 ms: a renewal
 * between the read and the write is read again, as any other writer of the key would.
 */
const stealAt = async (coord: Kv, handle: string, change: Record<string, unknown>): Promise<void> => {
  const key = placementKeys.seat(handle);
  for (;;) {
    const entry = (await coord.get(key))!;
    const lease = JSON.parse(new TextDecoder().decode(entry.value)) as Record<string, unknown>;
    try {
      await coord.update(
        key,
        new TextEncoder().encode(JSON.stringify({ ...lease, ...change })),
        entry.revision,
      );
      return;
    } catch (error) {
      if (!(error instanceof KvConflictError)) throw error;
    }
  }
};
const future = (): string => new Date(Date.now() + 600_000).toISOString();
const past = (): string => new Date(Date.now() - 1_000).toISOString();

t.test(
  'a second live process of the same node id takes none of its seats: every lease keeps its epoch',
  async (t) => {
    const fleet = await startFleet(t);
    const lease = { ttlMs: 600_000, renewEveryMs: 50 };
    const first = await fleet.node('node-a', lease);
    await first.apply(fleet.doc);
    const second = await fleet.node('node-a', lease);
    await second.apply(fleet.doc);
    t.same(second.runtime.seats(), [], 'the duplicate took no seat from the live process');
    // Both processes renew and look for seats every 50 ms: a few rounds later nothing moved.
    await writesTo(fleet.catalogue.coord, placementKeys.seat('ada'), 3);
    t.same(first.runtime.seats().sort(), ['ada', 'bob', 'cy'], 'the first process keeps every seat');
    t.same(second.runtime.seats(), []);
    for (const handle of ['ada', 'bob', 'cy'])
      t.match(await readLease(fleet.catalogue.coord, placementKeys.seat(handle)), { epoch: 1 });
  },
);

t.test('a restarted node takes its seats back at once from its earlier process, which is gone', async (t) => {
  const fleet = await startFleet(t);
  // A ttl far longer than the test: the takeover cannot be an expiry.
  const lease = { ttlMs: 600_000, renewEveryMs: 50 };
  const crashed = await fleet.node('node-a', lease);
  await crashed.apply(fleet.doc);
  await crashed.runtime.stop({ release: false });
  const restarted = await fleet.node('node-a', lease);
  await restarted.apply(fleet.doc);
  t.same(restarted.runtime.seats().sort(), ['ada', 'bob', 'cy']);
  t.match(await readLease(fleet.catalogue.coord, placementKeys.seat('ada')), { node: 'node-a', epoch: 2 });
});

t.test(
  'a seat fenced and taken again while its host starts runs its wakes under the new epoch',
  async (t) => {
    const fleet = await startFleet(t);
    const coord = fleet.catalogue.coord;
    const step = heldStep();
    let holding = true;
    // The host's start reads the seat's pause record: held there, so the fence lands mid-start.
    const get = async (key: string) => {
      if (holding && key === seatKeys.paused('ada')) {
        holding = false;
        step.arrive();
        await step.wait;
      }
      return coord.get(key);
    };
    const logs = logLines();
    const a = await fleet.node(
      'node-a',
      { ttlMs: 600_000, renewEveryMs: 50 },
      { coord: wrap(coord, 'get', get), logger: logs.logger },
    );
    const applied = a.apply(fleet.doc);
    await step.reached;
    // A peer holds the next epoch (as after a stall past the ttl): the fence finds no host to stop yet.
    await stealAt(coord, 'ada', { node: 'node-z', instance: 'z', epoch: 2, expires_at: future() });
    await logs.line((l) => l.msg.startsWith('seat fenced') && l['seat'] === 'ada');
    // The peer's lease lapses and the seat is taken again, all before the first host finished starting.
    await stealAt(coord, 'ada', { expires_at: past(), renewed_at: past() });
    await logs.line((l) => l.msg === 'seat lease taken' && l['seat'] === 'ada' && l['epoch'] === 3);
    step.release();
    await applied;
    await a.runs(['ada', 'bob', 'cy']);
    t.match(await readLease(coord, placementKeys.seat('ada')), { node: 'node-a', epoch: 3 });
    const done = await fleet.waitFor(completedOf(await fleet.wake('ada')));
    t.equal(nodeOf(done), 'node-a', 'the wake ran: the host of the fenced epoch was not kept');
  },
);

t.test(
  'a host left from an earlier epoch of a seat taken again is replaced, and the wakes run',
  async (t) => {
    const fleet = await startFleet(t);
    const coord = fleet.catalogue.coord;
    const a = await fleet.node('node-a', { ttlMs: 600_000, renewEveryMs: 50 });
    await a.apply(fleet.doc);
    const before = a.runtime.host('ada');
    t.ok(before);
    // Its own lease, rewritten as lapsed: the next renewal is refused and the same tick takes it again.
    await stealAt(coord, 'ada', { expires_at: past(), renewed_at: past() });
    await once(a, () => a.runtime.host('ada') !== before && a.runtime.host('ada') !== null);
    t.match(await readLease(coord, placementKeys.seat('ada')), { node: 'node-a', epoch: 2 });
    const done = await fleet.waitFor(completedOf(await fleet.wake('ada')));
    t.equal(nodeOf(done), 'node-a');
  },
);

t.test('a seat stopped while its inbox consumer attaches closes that consumer', async (t) => {
  const fleet = await startFleet(t);
  const step = heldStep();
  let holding = true;
  const stopped: boolean[] = [];
  const consume: Bus['consume'] = async (stream, spec, handler) => {
    const sub = await fleet.bus.consume(stream, spec, handler);
    if (!(holding && spec.durable === 'seat-ada')) return sub;
    holding = false;
    step.arrive();
    await step.wait;
    const index = stopped.push(false) - 1;
    return {
      stop: async () => {
        stopped[index] = true;
        await sub.stop();
      },
    };
  };
  const logs = logLines();
  const a = await fleet.node(
    'node-a',
    { ttlMs: 600_000, renewEveryMs: 50 },
    { bus: wrap(fleet.bus, 'consume', consume), logger: logs.logger },
  );
  const applied = a.apply(fleet.doc);
  await step.reached;
  // A peer holds the next epoch: the host stops (fenced) while its consumer is still attaching.
  await stealAt(fleet.catalogue.coord, 'ada', {
    node: 'node-z',
    instance: 'z',
    epoch: 2,
    expires_at: future(),
  });
  await logs.line((l) => l.msg.startsWith('seat fenced') && l['seat'] === 'ada');
  step.release();
  await applied;
  t.same(stopped, [true], 'the consumer that attached to the stopped host was closed');
});
