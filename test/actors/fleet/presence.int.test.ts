/**
 * Node presence on a real memory bus: each started presence stands for one process of a node, each
 * with its own fleet view (as each node watches the coordination store itself).
 */
import { hostname } from 'node:os';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import {
  acquireLease,
  fleetAnswer,
  placementKeys,
  removeNode,
  startPresence,
  watchFleet,
  type FleetView,
  type Presence,
  type PresenceFacts,
} from '../../../actors/index.js';
import { ensureCatalogue, openMemoryBus, type Kv } from '../../../bus/index.js';
import { NodePresence, type NodeAlarms, type Posture } from '../../../schema/index.js';

const logger = pino({ level: process.env['TEST_LOG'] ? 'debug' : 'silent' });
const ttlMs = 3_000;

async function coordinationStore(t: Test): Promise<Kv> {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  return (await ensureCatalogue(bus)).coord;
}

interface Process {
  readonly view: FleetView;
  readonly presence: Presence;
}

const startedAt = new Date().toISOString();

/** What a node says of its configuration and alarms (its `/health` posture and alarm summary). */
interface Condition {
  posture: Posture;
  alarms: NodeAlarms | null;
}

async function start(
  t: Test,
  coord: Kv,
  node: string,
  epoch = () => 0,
  ttl = ttlMs,
  condition: () => Condition = () => ({ posture: 'serve', alarms: { count: 0, names: [] } }),
): Promise<Process> {
  const view = await watchFleet(coord);
  const presence = await startPresence({
    coord,
    view,
    nodeId: node,
    logger,
    ttlMs: ttl,
    describe: () => ({
      roles: ['ingress', 'data', 'seats'],
      labels: { zone: 'z1' },
      version: '0.0.0-test',
      started_at: startedAt,
      applied_epoch: epoch(),
      ...condition(),
      store: { engine: 'memory', dir: null },
      sandbox: { isolation: 'bubblewrap', network: 'none' },
      api: null,
    }),
  });
  t.teardown(async () => {
    await presence.stop({ release: false });
    await view.stop();
  });
  return { view, presence };
}

/** Resolves once `read()` satisfies `test`; the view and the timers move on their own. */
async function until<T = PresenceFacts>(
  read: () => T,
  test: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (!test(read())) {
    if (Date.now() > deadline) throw new Error(`never matched: ${JSON.stringify(read())}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return read();
}

t.test('every node counts the live presences, and its own makes it present', async (t) => {
  const coord = await coordinationStore(t);
  const a = await start(t, coord, 'node-a');
  const b = await start(t, coord, 'node-b');
  t.same(
    await until(
      () => a.presence.facts(),
      (f) => f.nodes === 2,
    ),
    {
      nodes: 2,
      presence: true,
      admissionWithheld: false,
    },
  );
  t.same(
    await until(
      () => b.presence.facts(),
      (f) => f.nodes === 2,
    ),
    {
      nodes: 2,
      presence: true,
      admissionWithheld: false,
    },
  );
  const answer = fleetAnswer({ node: 'node-b', now: new Date(), view: b.view, complete: true });
  t.same(
    answer.nodes.map((n) => [n.id, n.labels, n.applied_epoch, n.sandbox]),
    [
      ['node-a', { zone: 'z1' }, 0, { isolation: 'bubblewrap', network: 'none' }],
      ['node-b', { zone: 'z1' }, 0, { isolation: 'bubblewrap', network: 'none' }],
    ],
  );
});

t.test('a presence record of an earlier release, without sandbox, reads as unknown', async (t) => {
  const record = {
    node: 'old',
    instance: 'i-1',
    roles: ['seats'],
    version: '0.9.0',
    started_at: startedAt,
    applied_epoch: 3,
    store: { engine: 'memory', dir: null },
    api: null,
    renewed_at: startedAt,
    expires_at: startedAt,
  };
  t.equal(NodePresence.parse(record).sandbox, null);
  t.equal(NodePresence.parse(record).posture, null, 'its posture unknown');
  t.equal(NodePresence.parse(record).alarms, null, 'its alarms unknown');
});

t.test("a node's posture and alarms show in its peer's /fleet row, and a change within a look", async (t) => {
  const coord = await coordinationStore(t);
  let condition: Condition = { posture: 'serve', alarms: null };
  await start(
    t,
    coord,
    'node-a',
    () => 0,
    ttlMs,
    () => condition,
  );
  const b = await start(t, coord, 'node-b');
  const rowOf = () =>
    fleetAnswer({ node: 'node-b', now: new Date(), view: b.view, complete: true }).nodes.find(
      (n) => n.id === 'node-a',
    );
  t.match(
    await until(rowOf, (row) => row !== undefined),
    { posture: 'serve', alarms: null },
    'before its first alarm evaluation: none announced',
  );
  condition = {
    posture: 'stuck',
    alarms: { count: 2, worst: 'critical', names: ['apply_stuck', 'provider_no_key:main'] },
  };
  // Well inside a renewal period (a third of the 3 s ttl): the record is rewritten on the change itself.
  const changed = await until(rowOf, (row) => row?.posture === 'stuck', 600);
  t.same(
    { posture: changed?.posture, alarms: changed?.alarms, applied_epoch: changed?.applied_epoch },
    {
      posture: 'stuck',
      alarms: { count: 2, worst: 'critical', names: ['apply_stuck', 'provider_no_key:main'] },
      applied_epoch: 0,
    },
  );
});

t.test('a graceful stop removes the presence at once; peers count one node fewer', async (t) => {
  const coord = await coordinationStore(t);
  const a = await start(t, coord, 'node-a');
  const b = await start(t, coord, 'node-b');
  await until(
    () => b.presence.facts(),
    (f) => f.nodes === 2,
  );
  await a.presence.stop();
  t.equal(
    (
      await until(
        () => b.presence.facts(),
        (f) => f.nodes === 1,
      )
    ).nodes,
    1,
  );
  t.equal(await coord.get('presence.node-a'), null, 'the record is gone');
});

t.test(
  'a crashed process leaves its presence to expire: the fleet stops listing it at its expiry',
  async (t) => {
    const coord = await coordinationStore(t);
    const a = await start(t, coord, 'node-a');
    const b = await start(t, coord, 'node-b');
    await until(
      () => b.presence.facts(),
      (f) => f.nodes === 2,
    );
    await a.presence.stop({ release: false });
    const record = b.view.presences().get('node-a')!.record;
    const before = new Date(new Date(record.expires_at).getTime() - 1);
    const after = new Date(new Date(record.expires_at).getTime() + 1);
    const listed = (now: Date) => fleetAnswer({ node: 'node-b', now, view: b.view, complete: true });
    t.ok(
      listed(before).nodes.some((n) => n.id === 'node-a'),
      'listed until its expiry',
    );
    t.notOk(
      listed(after).nodes.some((n) => n.id === 'node-a'),
      'gone after it',
    );
    t.same(
      listed(after).expired.find((e) => e.node === 'node-a'),
      { node: 'node-a', expired_at: record.expires_at },
      'named among the expired records',
    );
  },
);

t.test('a changed config epoch is written at once, not at the next renewal', async (t) => {
  const coord = await coordinationStore(t);
  let epoch = 0;
  // A 10-minute lease renews every 200 s: a peer that sees the new epoch within the wait's bound was not
  // told by a renewal, however slow the machine.
  await start(t, coord, 'node-a', () => epoch, 600_000);
  const b = await start(t, coord, 'node-b', () => 0, 600_000);
  await until(
    () => b.presence.facts(),
    (f) => f.nodes === 2,
  );
  epoch = 4;
  const seen = await until(
    () => b.view.presences().get('node-a')?.record.applied_epoch,
    (applied) => applied === 4,
    30_000,
  );
  t.equal(seen, 4, 'the peer sees epoch 4 long before the next renewal');
});

t.test('a second process writing the same node id withholds admission on both', async (t) => {
  const coord = await coordinationStore(t);
  const first = await start(t, coord, 'node-a');
  const second = await start(t, coord, 'node-a');
  t.equal(
    (
      await until(
        () => first.presence.facts(),
        (f) => f.admissionWithheld,
      )
    ).admissionWithheld,
    true,
  );
  t.equal(
    (
      await until(
        () => second.presence.facts(),
        (f) => f.admissionWithheld,
      )
    ).admissionWithheld,
    true,
  );
});

t.test(
  'two processes writing one node id: /fleet keeps one row and lists the other under duplicates',
  async (t) => {
    const coord = await coordinationStore(t);
    const first = await start(t, coord, 'node-a');
    const second = await start(t, coord, 'node-a');
    const answer = () => fleetAnswer({ node: 'node-a', now: new Date(), view: first.view, complete: true });
    const both = await until(answer, (f) => f.nodes[0]?.duplicates?.length === 1);
    const [row] = both.nodes;
    t.equal(both.nodes.length, 1, 'one row for the id');
    t.match(row, { id: 'node-a', host: hostname(), pid: process.pid });
    t.match(row?.duplicates, [{ host: hostname(), pid: process.pid, started_at: startedAt }]);
    t.not(row?.duplicates?.[0]?.instance, row?.instance, 'the duplicate is the other process');
    // Over two renewal periods each process rewrites the key: the row stays with one of them.
    const rows = new Set<string>();
    const sampleUntil = Date.now() + (2 * ttlMs) / 3 + 500;
    while (Date.now() < sampleUntil) {
      const now = answer().nodes[0];
      if (now?.duplicates?.length === 1) rows.add(`${now.instance}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t.same([...rows], [row?.instance], 'the row does not flip between the two');
    await second.presence.stop();
    await until(answer, (f) => f.nodes[0]?.duplicates === undefined);
    t.pass('the stopped process leaves the duplicates');
  },
);

t.test('a restarted node is not taken for a duplicate of its crashed process', async (t) => {
  const coord = await coordinationStore(t);
  const crashed = await start(t, coord, 'node-a');
  await crashed.presence.stop({ release: false });
  const restarted = await start(t, coord, 'node-a');
  // Two renewals of the restarted process, counted as they land rather than timed: a duplicate would
  // have shown by then.
  let revision = (await coord.get('presence.node-a'))!.revision;
  let renewals = 0;
  let withheld = false;
  const deadline = Date.now() + 30_000;
  while (renewals < 2) {
    if (Date.now() > deadline) throw new Error(`${renewals} renewals seen`);
    withheld ||= restarted.presence.facts().admissionWithheld;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = (await coord.get('presence.node-a'))!.revision;
    if (now !== revision) [revision, renewals] = [now, renewals + 1];
  }
  withheld ||= restarted.presence.facts().admissionWithheld;
  t.notOk(withheld, 'admission never withheld through two renewals');
  t.equal(restarted.presence.facts().nodes, 1);
  const [row] = fleetAnswer({ node: 'node-a', now: new Date(), view: restarted.view, complete: true }).nodes;
  t.notOk(
    row && 'duplicates' in row,
    '/fleet lists no duplicate: the crashed process wrote before the restart',
  );
});

t.test('removing a node: refused while it holds a live lease, forced or after expiry it goes', async (t) => {
  const coord = await coordinationStore(t);
  t.same(await removeNode({ coord, node: 'node-x', force: false }), { outcome: 'unknown' });

  // Two nodes that died (their records left to expire), each holding a seat. Leases of ten minutes: still
  // live at every check below, however slow the machine (with 3 s ones a stall let them expire first).
  const leaseMs = 600_000;
  for (const [node, handle] of [
    ['node-a', 'ada'],
    ['node-b', 'bob'],
  ] as const) {
    const p = await start(t, coord, node, () => 0, leaseMs);
    await until(
      () => p.presence.facts(),
      (f) => f.presence === true,
    );
    const seat = await acquireLease(
      coord,
      placementKeys.seat(handle),
      { duty: `seat.${handle}`, node, instance: 'i' },
      new Date(),
      leaseMs,
    );
    t.ok(seat.won);
    await p.presence.stop({ release: false });
  }

  const refused = await removeNode({ coord, node: 'node-a', force: false });
  t.equal(refused.outcome, 'live');
  if (refused.outcome === 'live')
    t.same(
      refused.leases.map((l) => [l.kind, l.name]),
      [
        ['presence', 'node-a'],
        ['seat', 'ada'],
      ],
    );
  t.not(await coord.get('presence.node-a'), null, 'nothing removed');

  const forced = await removeNode({ coord, node: 'node-b', force: true });
  t.same(forced.outcome === 'removed' && forced.answer.deleted, ['presence.node-b']);
  t.same(forced.outcome === 'removed' && forced.answer.leases.map((l) => l.kind), ['presence', 'seat']);
  t.equal(await coord.get('presence.node-b'), null, 'the presence is gone');
  t.not(await coord.get(placementKeys.seat('bob')), null, 'a live seat lease is never cut short');

  // Once every lease of node-a expired, no force is needed.
  const later = () => new Date(Date.now() + 2 * leaseMs);
  const expired = await removeNode({ coord, node: 'node-a', force: false, now: later });
  t.same(expired.outcome === 'removed' && expired.answer, {
    removed: 'node-a',
    forced: false,
    deleted: ['presence.node-a'],
    leases: [],
  });
});

t.test('while a renewal hangs past the ttl the count is unknown, not zero nodes', async (t) => {
  const coord = await coordinationStore(t);
  const view = await watchFleet(coord);
  let ahead = 0;
  let held: Array<() => void> | null = null;
  // The coordination store with puts that wait while `held` is set, as over a cut link.
  const cut = new Proxy(coord, {
    get(target, prop) {
      const real = Reflect.get(target, prop) as unknown;
      if (typeof real !== 'function') return real;
      if (prop !== 'put') return (real as (...a: unknown[]) => unknown).bind(target);
      return (...args: Parameters<Kv['put']>) =>
        held === null
          ? target.put(...args)
          : new Promise<void>((resolve) => held!.push(resolve)).then(() => target.put(...args));
    },
  });
  const presence = await startPresence({
    coord: cut,
    view,
    nodeId: 'node-a',
    logger,
    ttlMs,
    now: () => new Date(Date.now() + ahead),
    describe: () => ({
      roles: ['ingress'], labels: {}, version: '0.0.0-test', started_at: startedAt, applied_epoch: 0,
      posture: 'serve', alarms: null, store: { engine: 'memory', dir: null }, sandbox: { isolation: 'process', network: 'host' }, api: null,
    }), // prettier-ignore
  });
  t.teardown(async () => {
    for (const resolve of held?.splice(0) ?? []) resolve();
    held = null;
    await presence.stop({ release: false });
    await view.stop();
  });
  await until(
    () => presence.facts(),
    (f) => f.nodes === 1,
  );
  held = [];
  ahead = ttlMs + 1_000;
  t.same(presence.facts(), { nodes: null, presence: false, admissionWithheld: false });
});

t.test('a node whose presence was removed under it reports no presence until it writes again', async (t) => {
  const coord = await coordinationStore(t);
  // A 30 s lease renews every 10 s: the gap after the removal is long enough to see.
  const a = await start(t, coord, 'node-a', () => 0, 30_000);
  await until(
    () => a.presence.facts(),
    (f) => f.presence === true,
  );
  const removed = await removeNode({ coord, node: 'node-a', force: true });
  t.equal(removed.outcome, 'removed');
  const facts = await until(
    () => a.presence.facts(),
    (f) => f.presence === false,
  );
  t.same(facts, { nodes: 0, presence: false, admissionWithheld: false });
});
