/**
 * Broker membership on a real 3-server nats-server cluster (`GET /fleet/broker` reads it): what the
 * connected server advertises and what the streams report, a stopped server named as a disagreement,
 * and its removal from the cluster by `$JS.API.SERVER.REMOVE` (the harness servers run without
 * accounts, so the default account may ask).
 */
import t from 'tap';
import { openBus, type Bus } from '../../bus/index.js';
import type { BrokerMembership } from '../../schema/index.js';
import { startNatsCluster } from '../harness/nats-server.js';

/** Reads the membership until `test` holds (the broker notices a stopped server within seconds). */
async function until(
  bus: Bus,
  test: (m: BrokerMembership) => boolean,
  timeoutMs = 30_000,
): Promise<BrokerMembership> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = await bus.brokerMembership();
    if (test(m)) return m;
    if (Date.now() > deadline) throw new Error(`membership never matched:\n${JSON.stringify(m, null, 2)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

t.test(
  'a three-server cluster: advertised and reported agree, a stopped server is named, then removed',
  async (t) => {
    const cluster = await startNatsCluster(3, { t });
    const bus = await openBus({ type: 'jetstream', url: cluster.urls[0]!, replicas: 3 });
    t.teardown(() => bus.close());
    await bus.ensureStream({ name: 'MEMBERS', subjects: ['members.>'] });

    // A follower of the stream just created may read as lagging for a moment: a healthy cluster settles.
    const healthy = await until(
      bus,
      (m) =>
        m.reported.servers.length === 3 && m.advertised.servers.length === 3 && m.disagreements.length === 0,
    );
    t.equal(healthy.engine, 'jetstream');
    t.equal(healthy.server, 'n1', 'connected to the first server');
    t.ok(healthy.cluster, 'the cluster name is advertised');
    t.same(
      healthy.reported.servers.map((s) => s.name),
      ['n1', 'n2', 'n3'],
    );
    t.ok(
      healthy.reported.servers.every((s) => s.peer_id !== null || s.leads > 0),
      'followers carry their raft peer id',
    );
    const members = healthy.reported.streams.find((s) => s.name === 'MEMBERS');
    t.equal(members?.replicas, 3);
    t.equal((members?.leader ? 1 : 0) + (members?.followers.length ?? 0), 3, 'three copies reported');
    t.equal(healthy.reported.meta, null, 'the default account may not read the meta group');
    t.match(healthy.reported.meta_unavailable, /system account/);

    await cluster.servers[2]!.stop();
    // The stopped server leaves the streams' reports and the connected server's gossip at different
    // moments: wait for both, then check what each says.
    const degraded = await until(
      bus,
      (m) =>
        m.disagreements.some((d) => d.kind === 'offline' && d.server === 'n3') &&
        m.advertised.servers.length === 2,
    );
    t.ok(
      degraded.disagreements.some((d) => d.kind === 'count'),
      'the streams name a server the connected one no longer advertises',
    );
    t.equal(degraded.advertised.servers.length, 2);

    t.same(await bus.removeBrokerPeer('nobody'), {
      removed: false,
      reason: 'unknown_peer',
      detail: 'nobody is not a member of the cluster',
    });
    t.same(await bus.removeBrokerPeer('n3'), { removed: true, server: 'n3' });
  },
);
