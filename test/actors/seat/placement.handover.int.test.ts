/**
 * Seat placement across nodes: two seats runtimes on one shared memory bus stand for two `seats`
 * nodes. Each agent seat is a lease in `svc_coord`; a wake runs only where its seat's lease is held.
 * These: where a held seat's wakes and commands run, and how a seat moves when its node stops, crashes,
 * loses its renewal or is gone for good.
 */
import t from 'tap';
import { placementKeys, readLease } from '../../../actors/index.js';
import { sendCommand } from '../../../bus/index.js';
import { Commands } from '../../../schema/index.js';
import { completedOf, nodeOf, startFleet } from './placement.fixture.js';

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
