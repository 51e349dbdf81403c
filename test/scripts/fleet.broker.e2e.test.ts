/**
 * `GET /fleet/broker` while a server of the cluster dies (SPEC: broker membership as advertised and as
 * reported, with disagreements): a `svc serve` child connected to n1 of a 3-server nats-server cluster;
 * n1 is killed -9. Until the streams can be listed again, the answer names the servers last reported,
 * each with that report's instant and age, and the server whose link this node lost is marked; never an
 * empty list.
 */
import t from 'tap';
import type { BrokerMembership } from '../../schema/index.js';
import { startFleetNode, until } from '../harness/fleet-node.js';
import { startNatsCluster } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';

const auth = { authorization: `Bearer ${TOKEN}` };

t.test('a server killed -9: /fleet/broker keeps the last-known servers, the lost one marked', async (t) => {
  const cluster = await startNatsCluster(3, { t });
  const a = await startFleetNode(t, 'node-a', cluster.urls[0]!, { queue: 'replicas: 3' });
  const read = async (): Promise<BrokerMembership> =>
    (await (await fetch(`${a.url}/fleet/broker`, { headers: auth })).json()) as BrokerMembership;
  const healthy = await until(read, (m) => m.reported.servers.length === 3 && m.disagreements.length === 0);
  t.equal(healthy.server, 'n1', 'connected to n1');
  t.notOk(
    healthy.reported.servers.some((s) => s.report_age_ms !== undefined),
    'a fresh report carries no age',
  );

  process.kill(cluster.servers[0]!.pid, 'SIGKILL');
  const stale: BrokerMembership[] = [];
  let refusal: { status: number; body: { error?: string; detail?: string } } | null = null;
  const recovered = await until(
    async () => {
      const m = await read();
      if (m.reported.unavailable !== undefined) stale.push(m);
      if (m.reported.unavailable !== undefined && refusal === null) {
        // Removing a server the report cannot speak for now is refused without force.
        const res = await fetch(`${a.url}/fleet/broker/remove-peer/n1?confirm=n1`, {
          method: 'POST',
          headers: auth,
        });
        refusal = { status: res.status, body: (await res.json()) as { error?: string; detail?: string } };
      }
      return m;
    },
    (m) => m.reported.unavailable === undefined && m.server !== 'n1',
    { timeoutMs: 60_000, everyMs: 250 },
  );
  t.ok(stale.length > 0, `the streams could not be listed for a while (${stale.length} answers)`);
  for (const m of stale) {
    t.same(
      m.reported.servers.map((s) => s.name),
      ['n1', 'n2', 'n3'],
      `the last-known servers, not an empty list (${m.reported.unavailable})`,
    );
    t.ok(
      m.reported.servers.every(
        (s) => typeof s.last_reported_at === 'string' && typeof s.report_age_ms === 'number',
      ),
      'each with its last report and age',
    );
    t.match(m.reported.unavailable, /last reported \d+ s ago/);
    const n1 = m.reported.servers.find((s) => s.name === 'n1');
    if (m.server !== 'n1') t.match(n1?.link_lost, /n1/, 'the server whose link dropped is marked');
  }
  const refused = refusal as { status: number; body: { error?: string; detail?: string } } | null;
  t.equal(refused?.status, 409);
  t.equal(refused?.body.error, 'member_live');
  // Read while the broker was still silent: the age of the report is named (else, read fresh: behind).
  t.match(refused?.body.detail, /n1 was last reported \d+ s ago|n1 is reported behind its leader/);
  t.ok(
    recovered.reported.servers.every((s) => s.report_age_ms === undefined),
    'a fresh report again',
  );
});
