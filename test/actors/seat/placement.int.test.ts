/**
 * Seat placement across nodes: two seats runtimes on one shared memory bus stand for two `seats`
 * nodes. Each agent seat is a lease in `svc_coord`; a wake runs only where its seat's lease is held.
 */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import t, { type Test } from 'tap';
import {
  createMemoryStore,
  createProviderRegistry,
  placementKeys,
  readLease,
  seatKeys,
  startSeatsRuntime,
  watchPlacement,
  type SeatsRuntime,
} from '../../../actors/index.js';
import {
  ensureCatalogue,
  openMemoryBus,
  sendCommand,
  Streams,
  type Bus,
  type Catalogue,
  type Kv,
} from '../../../bus/index.js';
import { Commands, Company, EventRecord } from '../../../schema/index.js';
import { startToolServers } from '../../../scripts/toolservers-wiring.js';
import { startLlmServer, type LlmServer } from '../../fixtures/llm/llm-server.js';
import type { Step } from '../../fixtures/llm/script.js';
import { company } from './harness.js';
import { mentionWake, queueWake } from '../../harness/wake.js';

const logger = pino({ level: process.env['TEST_LOG'] ? 'debug' : 'silent' });
const decode = (data: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(data));
const skip = {
  kind: 'text' as const,
  text: '{"decision":"skip"}',
  usage: { prompt_tokens: 10, completion_tokens: 2 },
};

interface Fleet {
  readonly bus: Bus;
  readonly catalogue: Catalogue;
  readonly llm: LlmServer;
  readonly doc: Company;
  node(id: string, lease: { ttlMs: number; renewEveryMs?: number }, opts?: NodeOptions): Promise<Node>;
  wake(handle: string): Promise<string>;
  /** The first stored event matching (waits for it). */
  waitFor(match: (e: EventRecord) => boolean): Promise<EventRecord>;
  events(type: string): Promise<EventRecord[]>;
}

/** What one node sees of the shared bus and store (a test wraps them to hold a step), and its admission. */
interface NodeOptions {
  readonly bus?: Bus;
  readonly coord?: Kv;
  readonly admitted?: () => boolean;
  readonly logger?: Logger;
}

interface Node {
  readonly runtime: SeatsRuntime;
  apply(doc: unknown): Promise<void>;
  /** Resolves once the node's hosts are exactly `handles`. */
  runs(handles: string[]): Promise<void>;
}

async function startFleet(t: Test, first: Step[] = []): Promise<Fleet> {
  const bus = await openMemoryBus({});
  const catalogue = await ensureCatalogue(bus);
  const llm = await startLlmServer({
    wire: 'openai',
    script: [...first, ...Array.from({ length: 20 }, () => skip)],
  });
  const doc = company(llm.baseUrl, { mcp_servers: [] });
  const stops: (() => Promise<void>)[] = [];
  t.teardown(async () => {
    for (const stop of stops.reverse()) await stop();
    await bus.close();
    await llm.close();
  });
  return {
    bus,
    catalogue,
    llm,
    doc,
    async node(id, lease, opts = {}) {
      const registry = createProviderRegistry({ document: doc, resolve: () => undefined });
      const tools = startToolServers({
        bus,
        nodeId: id,
        logger,
        memory: createMemoryStore({ kv: catalogue.memory }),
      });
      const runtime = startSeatsRuntime({
        bus: opts.bus ?? bus,
        coord: opts.coord ?? catalogue.coord,
        turnsDone: catalogue.turnsDone,
        nodeId: id,
        logger: opts.logger ?? logger,
        llm: registry,
        tools: tools.router,
        lease,
        ...(opts.admitted ? { admitted: opts.admitted } : {}),
      });
      stops.push(async () => {
        await runtime.stop();
        await tools.stop();
      });
      return {
        runtime,
        async apply(raw) {
          const next = Company.parse(raw);
          await registry.apply(next);
          await tools.subsystem.apply(next, null);
          await runtime.turnEngine.apply(next, null);
          await runtime.org.apply(next, null);
          await runtime.inboxes.apply(next, null);
        },
        runs: (handles) =>
          new Promise((resolve) => {
            const want = [...handles].sort().join();
            const check = (): boolean => runtime.seats().sort().join() === want;
            if (check()) return resolve();
            runtime.onSeatsChanged(() => {
              if (check()) resolve();
            });
          }),
      };
    },
    async wake(handle) {
      const message = mentionWake('Anything to do?');
      await queueWake(bus, handle, message);
      return message.trace_id;
    },
    waitFor: (match) =>
      new Promise((resolve) => {
        let done = false;
        const sub = bus.follow(Streams.Events, { fromSeq: 1 }, (msg) => {
          if (done) return;
          const record = EventRecord.parse(decode(msg.data));
          if (!match(record)) return;
          done = true;
          resolve(record);
          setImmediate(() => void sub.then((s) => s.stop()));
        });
      }),
    async events(type) {
      const out: EventRecord[] = [];
      for await (const msg of bus.replay(Streams.Events)) {
        const record = EventRecord.parse(decode(msg.data));
        if (record.type === type) out.push(record);
      }
      return out;
    },
  };
}

const completedOf = (trace: string) => (e: EventRecord) =>
  e.type === 'agent_turn_completed' && e.trace_id === trace;
const nodeOf = (e: EventRecord): string => e.source.split('/')[0]!;

t.test('a seat held by one node runs its wakes there and never on a peer', async (t) => {
  const fleet = await startFleet(t);
  const a = await fleet.node('node-a', { ttlMs: 60_000 });
  await a.apply(fleet.doc);
  const b = await fleet.node('node-b', { ttlMs: 60_000 });
  await b.apply(fleet.doc);
  t.same(a.runtime.seats().sort(), ['ada', 'bob', 'cy'], 'the first node took every free agent seat');
  t.same(b.runtime.seats(), [], 'the peer runs none of the held seats');
  t.equal(b.runtime.host('ada'), null);
  t.equal(a.runtime.holds('hu'), false, 'a human seat has no lease');

  const done = await fleet.waitFor(completedOf(await fleet.wake('ada')));
  t.equal(nodeOf(done), 'node-a');
  t.match(await readLease(fleet.catalogue.coord, placementKeys.seat('ada')), { node: 'node-a', epoch: 1 });
});

t.test('a node that stops gracefully releases its seats and a peer runs the queued wake once', async (t) => {
  const fleet = await startFleet(t);
  // A ttl far longer than the test: the takeover cannot be an expiry.
  const a = await fleet.node('node-a', { ttlMs: 600_000 });
  await a.apply(fleet.doc);
  const b = await fleet.node('node-b', { ttlMs: 600_000 });
  await b.apply(fleet.doc);
  t.same(b.runtime.seats(), []);

  await a.runtime.stop();
  const queued = await fleet.wake('ada');
  const first = await fleet.waitFor(completedOf(queued));
  t.equal(nodeOf(first), 'node-b', 'the peer took the seat and ran the queued wake');
  await b.runs(['ada', 'bob', 'cy']);
  t.match(await readLease(fleet.catalogue.coord, placementKeys.seat('ada')), { node: 'node-b', epoch: 2 });

  // A second wake completes after the first: by then a duplicate of the first would be stored.
  const second = await fleet.waitFor(completedOf(await fleet.wake('ada')));
  t.equal(nodeOf(second), 'node-b');
  const completed = (await fleet.events('agent_turn_completed')).filter((e) => e.trace_id === queued);
  t.equal(completed.length, 1, 'the queued wake ran exactly once');
});

t.test("a crashed node's seats are taken over once its leases expired", async (t) => {
  const fleet = await startFleet(t);
  const a = await fleet.node('node-a', { ttlMs: 400, renewEveryMs: 100 });
  await a.apply(fleet.doc);
  const b = await fleet.node('node-b', { ttlMs: 400, renewEveryMs: 100 });
  await b.apply(fleet.doc);
  t.same(b.runtime.seats(), [], 'renewals keep the seats with their holder');

  const before = await readLease(fleet.catalogue.coord, placementKeys.seat('ada'));
  await a.runtime.stop({ release: false });
  const done = await fleet.waitFor(completedOf(await fleet.wake('ada')));
  t.equal(nodeOf(done), 'node-b');
  await b.runs(['ada', 'bob', 'cy']);
  const history = await fleet.catalogue.coord.history(placementKeys.seat('ada'));
  const leases = history.map((e) => JSON.parse(new TextDecoder().decode(e.value)) as Record<string, string>);
  const lastOfA = leases.filter((l) => l['node'] === 'node-a').at(-1)!;
  const takeover = leases.find((l) => l['node'] === 'node-b')!;
  t.ok(before, 'node-a held the lease before it crashed');
  t.ok(
    Date.parse(takeover['acquired_at']!) >= Date.parse(lastOfA['expires_at']!),
    'the peer took the seat only once the crashed holder’s lease had expired',
  );
  t.equal(lastOfA['expires_at'] === lastOfA['renewed_at'], false, 'the crashed holder never released it');
});

t.test(
  'a second node gets its fair share of the free seats, and the lease table says who holds what',
  async (t) => {
    const fleet = await startFleet(t);
    const a = await fleet.node('node-a', { ttlMs: 600_000 });
    const b = await fleet.node('node-b', { ttlMs: 600_000 });
    // Both nodes are members before the seats exist.
    const empty = { ...fleet.doc, units: [], roles: [] };
    await b.apply(empty);
    await a.apply(empty);
    const view = await watchPlacement(fleet.catalogue.coord);
    t.teardown(() => view.stop());
    t.equal(view.placed('ada'), false, 'nobody holds a seat yet');

    await a.apply(fleet.doc);
    t.equal(a.runtime.seats().length, 2, 'ceil(3 seats / 2 nodes) taken at once');
    await b.apply(fleet.doc);
    t.equal(b.runtime.seats().length, 1, 'the peer took the seat left over');
    const holders = view.holders();
    t.same([...holders.keys()].sort(), ['ada', 'bob', 'cy']);
    for (const handle of a.runtime.seats()) t.equal(holders.get(handle), 'node-a');
    for (const handle of b.runtime.seats()) t.equal(holders.get(handle), 'node-b');
    t.equal(view.placed('hu'), false, 'a human seat is never placed');

    // A seat removed from the company is released.
    const [gone] = b.runtime.seats();
    const roles = (fleet.doc['roles'] as { name: string }[]).filter((r) => r.name.toLowerCase() !== gone);
    const units = (fleet.doc['units'] as { roles: { name: string }[] }[]).map((u) => ({
      ...u,
      roles: u.roles.filter((r) => r.name.toLowerCase() !== gone),
    }));
    await b.apply({ ...fleet.doc, roles, units });
    t.same(b.runtime.seats(), []);
    t.equal(view.placed(gone!), false, 'the removed seat’s lease ended');
  },
);

t.test(
  'pause and resume reach the node holding the seat, whichever seats node the command lands on',
  async (t) => {
    const fleet = await startFleet(t);
    const a = await fleet.node('node-a', { ttlMs: 60_000 });
    await a.apply(fleet.doc);
    const b = await fleet.node('node-b', { ttlMs: 60_000 });
    await b.apply(fleet.doc);
    t.same(b.runtime.seats(), []);
    const command = async (verb: 'pause' | 'resume', seat: string) => {
      const body = { seat, by: 'ops', reason: 'test', stop_running: false };
      return sendCommand(fleet.bus, Commands.seats[verb], body, { timeoutMs: 5000 });
    };
    // Requests alternate between the two nodes' repliers: half of them land on the node without the seat.
    for (let i = 0; i < 3; i += 1) {
      t.match(await command('pause', 'Ada'), { ok: true, handle: 'ada', paused: { by: 'ops' } });
      t.match(await command('resume', 'ada'), { ok: true, handle: 'ada', paused: null });
    }
    t.match(await command('pause', 'nobody'), { ok: false, error: 'not_found' });
    t.match(await command('pause', 'hu'), { ok: false, error: 'not_found' }, 'a human seat has no holder');
  },
);

t.test('a node whose renewal is refused stops that seat’s host and keeps the others', async (t) => {
  const fleet = await startFleet(t);
  const a = await fleet.node('node-a', { ttlMs: 60_000, renewEveryMs: 50 });
  await a.apply(fleet.doc);
  t.same(a.runtime.seats().sort(), ['ada', 'bob', 'cy']);
  // Another holder takes the next epoch (as a peer would after a stall longer than the ttl).
  const key = placementKeys.seat('ada');
  const entry = (await fleet.catalogue.coord.get(key))!;
  const lease = JSON.parse(new TextDecoder().decode(entry.value)) as Record<string, unknown>;
  const stolen = { ...lease, node: 'node-z', instance: 'z', epoch: 2 };
  await fleet.catalogue.coord.update(key, new TextEncoder().encode(JSON.stringify(stolen)), entry.revision);
  await a.runs(['bob', 'cy']);
  t.equal(a.runtime.host('ada'), null);
  t.equal(a.runtime.holds('ada'), false);
  t.match(await readLease(fleet.catalogue.coord, key), { node: 'node-z', epoch: 2 });
});

t.test('a node joining later gets its share: the busy node hands over idle seats only', async (t) => {
  const fleet = await startFleet(t);
  const lease = { ttlMs: 1000, renewEveryMs: 50 };
  const a = await fleet.node('node-a', lease);
  await a.apply(fleet.doc);
  t.same(a.runtime.seats().sort(), ['ada', 'bob', 'cy'], 'alone, the node holds every seat');
  const b = await fleet.node('node-b', lease);
  await b.apply(fleet.doc);
  t.same(b.runtime.seats(), [], 'every seat is held: the newcomer takes nothing at once');
  // ceil(3 seats / 2 nodes) = 2: one seat moves, and it runs its next wake on the newcomer.
  await Promise.all([a.runs(['ada', 'bob']), b.runs(['cy'])]);
  const trace = await fleet.wake('cy');
  t.equal(nodeOf(await fleet.waitFor(completedOf(trace))), 'node-b');
  t.equal((await fleet.events('agent_turn_completed')).length, 1, 'the wake ran once');
});

t.test('a seat in the middle of a turn is not handed over until the turn ends', async (t) => {
  const fleet = await startFleet(t, [{ ...skip, hold: 'turn' }]);
  const lease = { ttlMs: 1000, renewEveryMs: 50 };
  const a = await fleet.node('node-a', lease);
  await a.apply(fleet.doc);
  // cy sorts last: it is the seat balancing would hand over first.
  const trace = await fleet.wake('cy');
  await fleet.waitFor((e) => e.type === 'agent_phase_started' && e.trace_id === trace);
  const b = await fleet.node('node-b', lease);
  await b.apply(fleet.doc);
  await b.runs(['bob']);
  t.ok(a.runtime.host('cy'), 'the busy seat stayed where it runs');
  fleet.llm.release('turn');
  const done = await fleet.waitFor(completedOf(trace));
  t.equal(nodeOf(done), 'node-a');
  t.notOk(done.failed, 'the turn was not cut');
});

t.test('the member record of a node gone for ten lease periods is removed', async (t) => {
  const fleet = await startFleet(t);
  const key = placementKeys.member('node-gone');
  const longAgo = new Date(Date.now() - 3_600_000).toISOString();
  const gone = {
    duty: 'seats.member',
    node: 'node-gone',
    instance: 'x',
    epoch: 1,
    acquired_at: longAgo,
    renewed_at: longAgo,
    expires_at: longAgo,
  };
  await fleet.catalogue.coord.put(key, new TextEncoder().encode(JSON.stringify(gone)));
  const removed = new Promise<void>((resolve) => {
    void fleet.catalogue.coord
      .watch((entry) => entry.key === key && entry.operation === 'delete' && resolve(), { key })
      .then((sub) => t.teardown(() => sub.stop()));
  });
  const a = await fleet.node('node-a', { ttlMs: 1000, renewEveryMs: 50 });
  await a.apply(fleet.doc);
  await removed;
  t.equal(await fleet.catalogue.coord.get(key), null);
  t.ok(await fleet.catalogue.coord.get(placementKeys.member('node-a')), 'a live member stays');
});

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

const stealAt = async (coord: Kv, handle: string, change: Record<string, unknown>): Promise<void> => {
  const key = placementKeys.seat(handle);
  const entry = (await coord.get(key))!;
  const lease = JSON.parse(new TextDecoder().decode(entry.value)) as Record<string, unknown>;
  await coord.update(key, new TextEncoder().encode(JSON.stringify({ ...lease, ...change })), entry.revision);
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

t.test('a node whose admission is withheld takes no seat until it is admitted', async (t) => {
  const fleet = await startFleet(t);
  let admitted = false;
  const a = await fleet.node('node-a', { ttlMs: 600_000, renewEveryMs: 50 }, { admitted: () => admitted });
  await a.apply(fleet.doc);
  t.same(a.runtime.seats(), [], 'withheld: nothing taken');
  t.equal(await readLease(fleet.catalogue.coord, placementKeys.seat('ada')), null);
  admitted = true;
  await a.runs(['ada', 'bob', 'cy']);
  t.pass('admitted: the seats are taken at the next look');
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
