/**
 * Seat placement across nodes: two seats runtimes on one shared memory bus stand for two `seats`
 * nodes. Each agent seat is a lease in `svc_coord`; a wake runs only where its seat's lease is held.
 * These: how free seats are shared out between nodes, handed to a node joining later, and held back
 * from a node mid-turn or not yet admitted.
 */
import t from 'tap';
import { placementKeys, readLease, watchPlacement } from '../../../actors/index.js';
import { completedOf, nodeOf, skip, startFleet } from './placement.fixture.js';

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
