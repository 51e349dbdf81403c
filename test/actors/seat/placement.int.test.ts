/**
 * Seat placement across nodes: two seats runtimes on one shared memory bus stand for two `seats`
 * nodes. Each agent seat is a lease in `svc_coord`; a wake runs only where its seat's lease is held.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import {
  createMemoryStore,
  createProviderRegistry,
  placementKeys,
  readLease,
  startSeatsRuntime,
  watchPlacement,
  type SeatsRuntime,
} from '../../../actors/index.js';
import {
  ensureCatalogue,
  openMemoryBus,
  sendCommand,
  Streams,
  Subjects,
  type Bus,
  type Catalogue,
} from '../../../bus/index.js';
import { Commands, Company, EventRecord, type InboxMessage } from '../../../schema/index.js';
import { startToolServers } from '../../../scripts/toolservers-wiring.js';
import { startLlmServer, type LlmServer } from '../../fixtures/llm/llm-server.js';
import type { Step } from '../../fixtures/llm/script.js';
import { company } from './harness.js';

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
  node(id: string, lease: { ttlMs: number; renewEveryMs?: number }): Promise<Node>;
  wake(handle: string): Promise<string>;
  /** The first stored event matching (waits for it). */
  waitFor(match: (e: EventRecord) => boolean): Promise<EventRecord>;
  events(type: string): Promise<EventRecord[]>;
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
    async node(id, lease) {
      const registry = createProviderRegistry({ document: doc, resolve: () => undefined });
      const tools = startToolServers({
        bus,
        nodeId: id,
        logger,
        memory: createMemoryStore({ kv: catalogue.memory }),
      });
      const runtime = startSeatsRuntime({
        bus,
        coord: catalogue.coord,
        turnsDone: catalogue.turnsDone,
        nodeId: id,
        logger,
        llm: registry,
        tools: tools.router,
        lease,
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
      const trace = randomUUID().replaceAll('-', '');
      const message: InboxMessage = {
        id: randomUUID(),
        kind: 'mention',
        source: 'test',
        received_at: new Date().toISOString(),
        trace_id: trace,
        summary: 'Anything to do?',
        payload: {},
      };
      await bus.publish(Subjects.agentInbox(handle), new TextEncoder().encode(JSON.stringify(message)));
      return trace;
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
