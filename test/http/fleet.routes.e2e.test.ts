/**
 * The fleet routes through a real listener on the memory engine (`svc serve` children): the guard,
 * `/fleet` and `/health.nodes`, `/fleet/broker` with its one local member, the removal rules
 * (`confirm`, `force`, a live lease, an unknown id) and `svc fleet`. A departed node is made the only
 * way the memory engine allows: a node killed -9 whose store a second node then opens.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { BrokerMembership, FleetAnswer } from '../../schema/index.js';
import { main } from '../../scripts/svc.js';
import { freePort, runSvc, type SvcChild } from '../harness/child.js';
import { startNode as startServedNode, TOKEN } from '../harness/serve-node.js';

const auth = { authorization: `Bearer ${TOKEN}` };

async function post(
  url: string,
  headers: Record<string, string> = auth,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function get<T>(url: string, headers: Record<string, string> = auth): Promise<T> {
  return (await (await fetch(url, { headers })).json()) as T;
}

/** A node on a given store directory (so a second process can open the store a killed one left). */
async function serveOn(
  t: Test,
  store: string,
  node: string,
  leaseSeconds: number,
): Promise<{ url: string; run: SvcChild }> {
  const dir = mkdtempSync(join(tmpdir(), `svc-fleet-routes-${node}-`));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const configFile = join(dir, 'config.yaml');
  writeFileSync(
    configFile,
    [
      'providers: {queue: {type: memory}}',
      `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
      `stream: {store_dir: ${store}}`,
      `node: {id: ${node}, seat_lease_seconds: ${leaseSeconds}}`,
    ].join('\n'),
  );
  const run = runSvc(['serve', '--config', configFile], { SVC_TOKEN: TOKEN });
  t.teardown(() => run.kill('SIGKILL'));
  await run.waitForLog((line) => line.msg === 'node serving');
  return { url: `http://127.0.0.1:${port}`, run };
}

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(
    ['fleet', ...args],
    { SVC_TOKEN: TOKEN },
    { write: (s: string) => (out += s) },
    { write: (s: string) => (err += s) },
  );
  return { code, out, err };
}

t.test(
  'one memory node: the guard, /fleet, /health.nodes, /fleet/broker and the removal rules',
  async (t) => {
    const node = await startServedNode(t, 'node: {id: solo, labels: {zone: z1}}');
    const base = node.url;

    for (const [method, path] of [
      ['GET', '/fleet'],
      ['GET', '/fleet/broker'],
      ['POST', '/fleet/broker/remove/solo?confirm=solo'],
      ['POST', '/fleet/broker/remove-peer/local?confirm=local'],
    ] as const) {
      const res = await fetch(`${base}${path}`, { method });
      t.equal(res.status, 401, `${method} ${path} needs a token`);
    }

    const fleet = await get<FleetAnswer>(`${base}/fleet`);
    t.equal(fleet.node, 'solo');
    t.equal(fleet.complete, true);
    t.same(
      fleet.nodes.map((n) => [
        n.id,
        n.roles,
        n.labels,
        n.applied_epoch,
        n.store,
        n.sandbox,
        n.api,
        n.version,
      ]),
      [
        [
          'solo',
          ['ingress', 'data', 'seats'],
          { zone: 'z1' },
          0,
          { engine: 'memory', dir: join(node.dir, 'data') },
          { isolation: 'process', network: 'host' },
          { host: '127.0.0.1', port: node.port },
          fleet.nodes[0]!.version,
        ],
      ],
    );
    t.equal(fleet.nodes[0]!.posture, 'serve', 'its posture, as its /health reads it');
    t.same([fleet.seats, fleet.duties, fleet.expired], [{}, {}, []], 'nothing held before a company');
    t.equal(
      (await get<{ nodes?: number }>(`${base}/health`, {})).nodes,
      1,
      '/health counts its own presence',
    );

    const broker = await get<BrokerMembership>(`${base}/fleet/broker`);
    t.same(
      [broker.engine, broker.server, broker.advertised.servers, broker.reported.servers.map((s) => s.name)],
      ['memory', 'local', ['local'], ['local']],
    );
    t.same(broker.disagreements, []);

    const noConfirm = await post(`${base}/fleet/broker/remove/solo`);
    t.same([noConfirm.status, noConfirm.body['error']], [400, 'invalid_query'], 'confirm is required');
    const otherConfirm = await post(`${base}/fleet/broker/remove/solo?confirm=other`);
    t.same(
      [otherConfirm.status, otherConfirm.body['error']],
      [400, 'invalid_query'],
      'confirm repeats the id',
    );
    const badForce = await post(`${base}/fleet/broker/remove/solo?confirm=solo&force=yes`);
    t.same([badForce.status, badForce.body['error']], [400, 'invalid_query'], 'force is true or false');
    for (const id of ['bad id', '*', '>', 'a.b', '%00']) {
      const path = encodeURIComponent(id);
      const bad = await post(`${base}/fleet/broker/remove/${path}?confirm=${path}&force=true`);
      t.same([bad.status, bad.body['error']], [400, 'bad_params'], `${JSON.stringify(id)} is no node id`);
    }
    const unknown = await post(`${base}/fleet/broker/remove/nobody?confirm=nobody`);
    t.same([unknown.status, unknown.body['error']], [404, 'not_found'], 'an unknown node');

    const live = await post(`${base}/fleet/broker/remove/solo?confirm=solo`);
    t.same([live.status, live.body['error']], [409, 'member_live'], 'the serving node holds a live presence');
    t.same(
      (live.body['leases'] as { kind: string; name: string }[]).map((l) => [l.kind, l.name]),
      [['presence', 'solo']],
    );

    // The memory engine's one member runs inside the node: no stopping it first would help (ops/fleet.md).
    const peerLive = await post(`${base}/fleet/broker/remove-peer/local?confirm=local`);
    t.same([peerLive.status, peerLive.body['error']], [409, 'broker_refused'], 'the local member cannot go');
    t.notMatch(String(peerLive.body['hint']), /Stop that server first/, 'no advice to stop it first');
    const peerForced = await post(`${base}/fleet/broker/remove-peer/local?confirm=local&force=true`);
    t.same([peerForced.status, peerForced.body['error']], [409, 'broker_refused'], 'nor can it be removed');
    const peerUnknown = await post(`${base}/fleet/broker/remove-peer/n9?confirm=n9`);
    t.same([peerUnknown.status, peerUnknown.body['error']], [404, 'not_found'], 'an unknown peer');

    const status = await cli('status', '--url', base);
    t.equal(status.code, 0, status.err);
    t.match(status.out, /^NODE\s+ROLES\s+LABELS\s+EPOCH\s+POSTURE\s+ALARMS\s/);
    t.match(status.out, /solo\s+ingress,data,seats\s+zone=z1\s+0\s+serve\s/);
    t.match(status.out, /^NODE.*\bSANDBOX\b/);
    t.match(status.out, /memory:\S+\s+process\s+127\.0\.0\.1:/, 'how the node runs coding sandboxes');
    const json = await cli('status', '--json', '--broker', '--url', base);
    t.same(
      (JSON.parse(json.out) as { fleet: FleetAnswer; broker: BrokerMembership }).broker.engine,
      'memory',
    );
    const refused = await cli('remove', 'solo', '--confirm', 'solo', '--url', base);
    t.equal(refused.code, 1);
    t.match(refused.err, /409 member_live/);
    t.match(refused.err, /live presence solo until/);
    t.equal((await cli('remove', 'solo', '--url', base)).code, 2, 'the CLI asks for --confirm');
  },
);

t.test('a node killed -9 stays listed until its presence expires; its removal waits for that', async (t) => {
  const store = mkdtempSync(join(tmpdir(), 'svc-fleet-store-'));
  t.teardown(() => rmSync(store, { recursive: true, force: true }));
  // A long presence on the node that dies, so it is still live when the next node has started.
  const gone = await serveOn(t, store, 'gone', 30);
  gone.run.kill('SIGKILL');
  await gone.run.exited;
  const here = await serveOn(t, store, 'here', 3);

  const both = await get<FleetAnswer>(`${here.url}/fleet`);
  t.same(
    both.nodes.map((n) => n.id),
    ['gone', 'here'],
    'the killed node is listed while its presence lasts',
  );
  t.equal((await get<{ nodes?: number }>(`${here.url}/health`, {})).nodes, 2);
  const refused = await post(`${here.url}/fleet/broker/remove/gone?confirm=gone`);
  t.same([refused.status, refused.body['error']], [409, 'member_live']);

  const expiresAt = new Date(both.nodes.find((n) => n.id === 'gone')!.expires_at).getTime();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 50));
  const after = await get<FleetAnswer>(`${here.url}/fleet`);
  t.same(
    after.nodes.map((n) => n.id),
    ['here'],
    'gone from the live nodes at its expiry',
  );
  t.same(
    after.expired.map((e) => e.node),
    ['gone'],
  );
  t.equal((await get<{ nodes?: number }>(`${here.url}/health`, {})).nodes, 1);

  const removed = await post(`${here.url}/fleet/broker/remove/gone?confirm=gone`);
  t.equal(removed.status, 200);
  t.same(removed.body, {
    removed: 'gone',
    forced: false,
    deleted: ['presence.gone', 'seats.member.gone'],
    leases: [],
  });
  t.same((await get<FleetAnswer>(`${here.url}/fleet`)).expired, [], 'no longer listed at all');
});
