/**
 * The fleet surface on real processes: two `svc serve` children on one nats-server with a 3 s seat
 * lease (presence uses the same ttl). `/fleet` lists both with their seats and the scheduler duty,
 * `/health.nodes` counts them, a removal of a live node is refused without force, and a node killed
 * with SIGKILL leaves `/fleet` and `/health.nodes` once its presence expires, after which it can be
 * removed. `svc fleet status` reads the same answer. A node resumed after a SIGSTOP past its presence
 * calls nothing whole (`/fleet`, `/health.nodes`, a scatter read's coverage) that lacks its live peer. A
 * broker server killed -9 (a 3-server cluster) is refused removal without force as behind, not online.
 */
import t, { type Test } from 'tap';
import type { BrokerMembership, FleetAnswer } from '../../schema/index.js';
import { main } from '../../scripts/svc.js';
import { startFleetNode, until, type FleetNode } from '../harness/fleet-node.js';
import { startNatsCluster, startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';
import { localProviders } from '../fixtures/llm/providers.js';

const leaseSeconds = 3;
const auth = { authorization: `Bearer ${TOKEN}` };

type Node = FleetNode;

const startNode = (t: Test, id: string, natsUrl: string): Promise<Node> =>
  startFleetNode(t, id, natsUrl, {
    leaseSeconds,
    node: `labels: {zone: ${id === 'node-a' ? 'east' : 'west'}}`,
  });

async function get<T>(node: Node, path: string, headers: Record<string, string> = auth): Promise<T> {
  const res = await fetch(`${node.url}${path}`, { headers });
  return (await res.json()) as T;
}

const ids = (fleet: FleetAnswer): string[] => fleet.nodes.map((n) => n.id);

t.test('two nodes on one nats-server: /fleet, /health.nodes, removal and a node killed -9', async (t) => {
  const nats = await startNatsServer({ t });
  const a = await startNode(t, 'node-a', nats.url);
  const handles = ['ada', 'bob', 'cy', 'dee'];
  const company = {
    name: 'Acme',
    timezone: 'UTC',
    providers: localProviders('http://127.0.0.1:9/v1'),
    roles: handles.map((name) => ({ name })),
  };
  const put = await fetch(`${a.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'fleet' },
    body: JSON.stringify(company),
  });
  t.equal(put.status, 201, 'the company is stored');
  await a.run.waitForLog((l) => l.msg === 'config applied');
  const b = await startNode(t, 'node-b', nats.url);
  await b.run.waitForLog((l) => l.msg === 'config applied');

  t.equal((await fetch(`${a.url}/fleet`)).status, 401, '/fleet needs a token');
  // Both listed, with their seats between them once node-b took its share (balancing after one lease).
  const fleet = await until(
    () => get<FleetAnswer>(a, '/fleet'),
    (f) =>
      ids(f).join() === 'node-a,node-b' &&
      f.nodes.every((n) => n.seats.length === 2 && n.applied_epoch === 1) &&
      Object.keys(f.duties).length === 1,
  );
  t.equal(fleet.complete, true);
  t.same(
    fleet.nodes.map((n) => [n.id, n.labels, n.roles, n.store]),
    [
      ['node-a', { zone: 'east' }, ['ingress', 'data', 'seats'], { engine: 'jetstream', dir: null }],
      ['node-b', { zone: 'west' }, ['ingress', 'data', 'seats'], { engine: 'jetstream', dir: null }],
    ],
  );
  t.same(Object.keys(fleet.seats).sort(), handles, 'every seat is held');
  for (const node of fleet.nodes)
    for (const seat of node.seats) t.equal(fleet.seats[seat]?.node, node.id, `${seat} is ${node.id}'s`);
  t.ok(fleet.duties['scheduler'], 'the scheduler duty is listed with its holder');
  t.equal(fleet.nodes.find((n) => n.id === 'node-b')?.api?.port, Number(new URL(b.url).port));
  t.equal((await get<{ nodes?: number }>(a, '/health', {})).nodes, 2, 'node-a counts two presences');
  t.equal((await get<{ nodes?: number }>(b, '/health', {})).nodes, 2, 'node-b counts two presences');

  const refused = await fetch(`${a.url}/fleet/broker/remove/node-b?confirm=node-b`, {
    method: 'POST',
    headers: auth,
  });
  t.equal(refused.status, 409, 'a live node is not removed without force');
  const body = (await refused.json()) as { error: string; leases: { kind: string }[] };
  t.equal(body.error, 'member_live');
  t.same(
    [...new Set(body.leases.map((l) => l.kind))].sort(),
    ['presence', 'seat'],
    'its presence and seat leases are named',
  );

  // The command says the same in its own words: its flag, not the route's query.
  const cliErr: string[] = [];
  const cliCode = await main(
    ['fleet', 'remove', 'node-b', '--confirm', 'node-b', '--url', a.url],
    { SVC_TOKEN: TOKEN },
    { write: () => undefined },
    { write: (s: string) => cliErr.push(s) },
  );
  t.equal(cliCode, 1);
  t.match(cliErr.join(''), /member_live.*--force/s);
  t.notMatch(cliErr.join(''), /\?force=/);

  const broker = await get<BrokerMembership>(a, '/fleet/broker');
  t.equal(broker.engine, 'jetstream');
  t.equal(broker.reported.servers.length, 1, 'one server holds every stream');
  t.same(broker.disagreements, []);

  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    ['fleet', 'status', '--broker', '--url', a.url],
    { SVC_TOKEN: TOKEN },
    { write: (s: string) => out.push(s) },
    { write: (s: string) => err.push(s) },
  );
  t.equal(code, 0, err.join(''));
  t.match(out.join(''), /node-a\s+ingress,data,seats\s+zone=east\s+1\s/);
  t.match(out.join(''), /broker: jetstream/);

  // kill -9: node-b stops renewing; it leaves /fleet and /health.nodes when its presence expires.
  b.run.kill('SIGKILL');
  await b.run.exited;
  const killedAt = Date.now();
  const after = await until(
    () => get<FleetAnswer>(a, '/fleet'),
    (f) => ids(f).join() === 'node-a',
  );
  t.same(
    after.expired.map((e) => e.node),
    ['node-b'],
    'named among the expired',
  );
  // Read from the record, not timed by this process: its last renewal came before the kill.
  t.ok(Date.parse(after.expired[0]!.expired_at) <= killedAt + leaseSeconds * 1000, 'gone within the lease');
  t.equal((await get<{ nodes?: number }>(a, '/health', {})).nodes, 1, '/health counts one presence');

  // Its seat leases ran out with it (node-a takes the seats): the removal goes through without force.
  await until(
    () => get<FleetAnswer>(a, '/fleet'),
    (f) => Object.values(f.seats).every((s) => s.node === 'node-a') && Object.keys(f.seats).length === 4,
  );
  const removed = await fetch(`${a.url}/fleet/broker/remove/node-b?confirm=node-b`, {
    method: 'POST',
    headers: auth,
  });
  t.equal(removed.status, 200);
  t.same(await removed.json(), {
    removed: 'node-b',
    forced: false,
    deleted: ['presence.node-b', 'seats.member.node-b'],
    leases: [],
  });
  t.same((await get<FleetAnswer>(a, '/fleet')).expired, [], 'no longer listed at all');
});

type Coverage = { nodes: { id: string; answered: boolean }[]; complete: boolean };

t.test(
  'a node resumed after a pause past its presence vouches for no table its watch has not caught up with',
  async (t) => {
    const nats = await startNatsServer({ t });
    const a = await startNode(t, 'node-a', nats.url);
    const b = await startNode(t, 'node-b', nats.url);
    await until(
      () => get<FleetAnswer>(a, '/fleet'),
      (f) => f.complete && ids(f).join() === 'node-a,node-b',
    );

    // node-a stops; node-b renews all along. Once node-b reads node-a expired for a whole ttl, every
    // record node-a's watch last delivered has expired too (node-b's own among them).
    a.run.kill('SIGSTOP');
    t.teardown(() => a.run.kill('SIGCONT'));
    await until(
      () => get<FleetAnswer>(b, '/fleet'),
      (f) => {
        const gone = f.expired.find((e) => e.node === 'node-a');
        return (
          gone !== undefined && Date.parse(f.read_at) > Date.parse(gone.expired_at) + leaseSeconds * 1000
        );
      },
      { everyMs: 250 },
    );
    a.run.kill('SIGCONT');

    // From the first answer on: a table, a count or a coverage node-a calls whole holds node-b.
    const wrong: string[] = [];
    const samples = await until(
      async () => {
        const [fleet, health, events] = await Promise.all([
          get<FleetAnswer>(a, '/fleet'),
          get<{ nodes?: number }>(a, '/health', {}),
          get<{ coverage: Coverage }>(a, '/events?limit=1'),
        ]);
        if (fleet.complete && !ids(fleet).includes('node-b'))
          wrong.push(`/fleet complete without node-b: ${JSON.stringify(fleet.expired)}`);
        if (health.nodes !== undefined && health.nodes !== 2) wrong.push(`/health nodes ${health.nodes}`);
        if (events.coverage.complete && !events.coverage.nodes.some((n) => n.id === 'node-b'))
          wrong.push(`/events coverage complete without node-b`);
        return { fleet, health, events };
      },
      (s) => s.fleet.complete && s.health.nodes === 2 && s.events.coverage.complete,
      { everyMs: 20 },
    );
    t.same(wrong, [], 'no answer vouched for a stale table');
    t.same(ids(samples.fleet), ['node-a', 'node-b'], 'then both are listed again');
    t.same(
      samples.events.coverage.nodes.map((n) => n.id),
      ['node-a', 'node-b'],
    );
  },
);

t.test(
  'a broker server killed -9 is reported behind, never online, when its removal is refused without force',
  async (t) => {
    const cluster = await startNatsCluster(3, { t });
    const a = await startFleetNode(t, 'node-a', cluster.urls[0]!, { leaseSeconds, queue: 'replicas: 3' });
    await until(
      () => get<BrokerMembership>(a, '/fleet/broker'),
      (m) => m.reported.servers.length === 3 && m.disagreements.length === 0,
    );
    process.kill(cluster.servers[2]!.pid, 'SIGKILL');
    // nats-server reports a server that was killed (not stopped) behind its leader, not offline.
    await until(
      () => get<BrokerMembership>(a, '/fleet/broker'),
      (m) => m.disagreements.some((d) => d.kind === 'lagging' && d.server === 'n3'),
      { everyMs: 500 },
    );
    const refused = await fetch(`${a.url}/fleet/broker/remove-peer/n3?confirm=n3`, {
      method: 'POST',
      headers: auth,
    });
    t.equal(refused.status, 409);
    const body = (await refused.json()) as { error: string; detail: string; hint: string };
    t.equal(body.error, 'member_live');
    t.notMatch(body.detail, /online/, 'a silent server is not called online');
    t.match(body.detail, /n3 is reported behind its leader, silent for \d+ s, not offline/);
    t.match(body.hint, /force=true/);
    t.notMatch(body.hint, /then reports it offline/, 'no promise that a killed server will read offline');
  },
);
