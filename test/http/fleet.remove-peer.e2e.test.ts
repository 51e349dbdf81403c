/**
 * `POST /fleet/broker/remove-peer/{peer}` without `force` removes only a server the broker's report shows
 * offline, or one the meta group shows is no member. A server the report cannot speak for (nats-server
 * 2.9 without the system account: no meta group; no stream copy on it) may be serving: 409.
 */
import t, { type Test } from 'tap';
import { fleetRoutes } from '../../http/index.js';
import type { BrokerMembership, BrokerServer, PeerRemoval } from '../../schema/index.js';
import { call, OPS, startHarness } from './fixtures/gateway-harness.js';

const server = (name: string, offline: boolean): BrokerServer => ({
  name, peer_id: `p-${name}`, current: true, offline, active_ms: 0, leads: 1, copies: 1,
}); // prettier-ignore

function membership(meta: boolean, servers: BrokerServer[]): BrokerMembership {
  return {
    engine: 'jetstream',
    server: 'n1',
    cluster: 'c',
    advertised: { servers: ['127.0.0.1:4001', '127.0.0.1:4002', '127.0.0.1:4003'] },
    reported: {
      meta: meta ? { leader: 'n1', cluster_size: 3, peers: servers } : null,
      ...(meta ? {} : { meta_unavailable: 'only the system account may ask' }),
      servers,
      streams: [],
    },
    disagreements: [],
  };
}

async function start(t: Test, report: BrokerMembership) {
  const asked: string[] = [];
  const removePeer = async (peer: string): Promise<PeerRemoval> => {
    asked.push(peer);
    return report.reported.servers.some((s) => s.name === peer)
      ? { removed: true, server: peer }
      : { removed: false, reason: 'unknown_peer', detail: `${peer} is not a member of the cluster` };
  };
  const h = await startHarness({
    routes: fleetRoutes({
      fleet: () => {
        throw new Error('not asked');
      },
      broker: async () => report,
      removeNode: async () => {
        throw new Error('not asked');
      },
      removePeer,
    }),
  });
  t.teardown(() => h.gw.close());
  const remove = async (peer: string, force = false) => {
    const res = await call(
      `${h.base}/fleet/broker/remove-peer/${peer}?confirm=${peer}${force ? '&force=true' : ''}`,
      {
        method: 'POST',
        headers: { authorization: OPS },
      },
    );
    return { status: res.status, body: res.json ?? {} };
  };
  return { asked, remove };
}

t.test('a server the report cannot show offline is refused 409 member_live and left alone', async (t) => {
  const { asked, remove } = await start(t, membership(false, [server('n1', false)]));
  const refused = await remove('n3');
  t.equal(refused.status, 409);
  t.match(refused.body, {
    error: 'member_live',
    detail: /cannot tell whether n3 is offline.*system account/,
  });
  t.same(asked, [], 'the broker was not asked to remove it');
  const forced = await remove('n3', true);
  t.equal(forced.status, 404, 'forced, the broker decides: here it is no member');
  t.same(asked, ['n3']);
});

t.test('a server reported online is refused; one reported offline is removed', async (t) => {
  const { asked, remove } = await start(t, membership(false, [server('n1', false), server('n2', true)]));
  t.match(await remove('n1'), { status: 409, body: { error: 'member_live', detail: /reports n1 online/ } });
  t.match(await remove('n2'), { status: 200, body: { removed: 'n2', forced: false } });
  t.same(asked, ['n2']);
});

t.test('with the meta group readable, a name it lacks is no member: 404 without force', async (t) => {
  const { remove } = await start(t, membership(true, [server('n1', false)]));
  t.match(await remove('n9'), { status: 404, body: { error: 'not_found' } });
});
