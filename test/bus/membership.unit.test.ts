import t from 'tap';
import {
  assembleMembership,
  carryOver,
  localMembership,
  type MembershipReading,
} from '../../bus/membership.js';
import type { BrokerPeer, BrokerStream } from '../../schema/index.js';

const peer = (name: string, extra: Partial<BrokerPeer> = {}): BrokerPeer => ({
  name,
  peer_id: `id-${name}`,
  current: true,
  offline: false,
  active_ms: 10,
  ...extra,
});
const stream = (
  name: string,
  leader: string | null,
  followers: BrokerPeer[],
  replicas = 3,
): BrokerStream => ({
  name,
  replicas,
  leader,
  followers,
});
const reading = (over: Partial<MembershipReading> = {}): MembershipReading => ({
  engine: 'jetstream',
  server: 'n1',
  cluster: 'c',
  advertised: ['127.0.0.1:1', '127.0.0.1:2', '127.0.0.1:3'],
  meta: null,
  metaUnavailable: 'no',
  streams: [stream('S', 'n1', [peer('n2'), peer('n3')])],
  ...over,
});

t.test('a healthy three-server cluster reports three servers and no disagreement', async (t) => {
  const m = assembleMembership(reading());
  t.same(
    m.reported.servers.map((s) => [s.name, s.leads, s.copies]),
    [
      ['n1', 1, 1],
      ['n2', 0, 1],
      ['n3', 0, 1],
    ],
  );
  t.same(m.disagreements, []);
  t.equal(m.reported.meta_unavailable, 'no');
});

t.test('an offline copy and a copy behind its leader are each named', async (t) => {
  const m = assembleMembership(
    reading({
      streams: [stream('S', 'n1', [peer('n2', { offline: true }), peer('n3', { current: false })])],
    }),
  );
  t.same(
    m.disagreements.map((d) => [d.kind, d.server]),
    [
      ['offline', 'n2'],
      ['lagging', 'n3'],
    ],
  );
});

t.test('a stream without a leader or short of copies is named', async (t) => {
  const m = assembleMembership(
    reading({ streams: [stream('A', null, [peer('n2'), peer('n3')]), stream('B', 'n1', [peer('n2')])] }),
  );
  t.same(
    m.disagreements.map((d) => [d.kind, d.stream]),
    [
      ['leaderless', 'A'],
      ['under_replicated', 'A'],
      ['under_replicated', 'B'],
    ],
  );
});

t.test('streams naming more servers than are advertised is a count disagreement', async (t) => {
  const m = assembleMembership(reading({ advertised: ['127.0.0.1:1', '127.0.0.1:2'] }));
  t.same(
    m.disagreements.map((d) => d.kind),
    ['count'],
  );
  t.match(m.disagreements[0]!.detail, /streams name 3 servers; the connected server advertises 2/);
});

t.test('fewer servers in streams than advertised is no disagreement without the meta group', async (t) => {
  const m = assembleMembership(reading({ streams: [stream('S', 'n1', [], 1)] }));
  t.same(m.disagreements, []);
});

t.test('with the meta group its size is compared with what is advertised', async (t) => {
  const meta = { leader: 'n1', cluster_size: 3, peers: [peer('n2'), peer('n3', { offline: true })] };
  const m = assembleMembership(reading({ meta, advertised: ['127.0.0.1:1', '127.0.0.1:2'], streams: [] }));
  t.same(
    m.disagreements.map((d) => d.kind),
    ['count', 'offline'],
  );
  t.same(
    m.reported.servers.map((s) => s.name),
    ['n1', 'n2', 'n3'],
  );
});

t.test('a server reported fine by one stream and offline by another reads offline', async (t) => {
  const m = assembleMembership(
    reading({
      streams: [
        stream('A', 'n1', [peer('n2'), peer('n3')]),
        stream('B', 'n1', [peer('n2', { offline: true, active_ms: 9000 }), peer('n3')]),
      ],
    }),
  );
  const n2 = m.reported.servers.find((s) => s.name === 'n2')!;
  t.equal(n2.offline, true);
  t.equal(n2.active_ms, 9000, 'the longest silence is kept');
  t.equal(n2.copies, 2);
});

t.test('the memory engine is one local member that agrees with itself', async (t) => {
  const m = localMembership();
  t.equal(m.engine, 'memory');
  t.same(m.advertised.servers, ['local']);
  t.same(
    m.reported.servers.map((s) => s.name),
    ['local'],
  );
  t.same(m.disagreements, []);
});

t.test("streams that cannot be listed: the last report's servers, aged, the lost link marked", async (t) => {
  const healthy = assembleMembership(reading({ streams: [stream('S', 'n1', [peer('n2'), peer('n3')])] }));
  const last = { at: new Date('2026-01-01T00:00:00Z'), server: 'n1', servers: healthy.reported.servers };
  const now = new Date('2026-01-01T00:00:06Z');
  const failed = assembleMembership(
    reading({ server: 'n3', streams: [], unavailable: 'the streams could not be listed (x)' }),
  );
  t.same(failed.reported.servers, [], 'nothing read now');

  const moved = carryOver(failed, last, now, true);
  t.same(
    moved.reported.servers.map((s) => s.name),
    ['n1', 'n2', 'n3'],
  );
  t.ok(
    moved.reported.servers.every(
      (s) => s.last_reported_at === '2026-01-01T00:00:00.000Z' && s.report_age_ms === 6000,
    ),
  );
  t.same(
    moved.reported.servers.map((s) => s.link_lost ?? null),
    ["this node's link to n1 dropped; it is connected to n3 now", null, null],
  );
  t.equal(
    moved.reported.unavailable,
    'the streams could not be listed (x); the servers as last reported 6 s ago',
  );
  t.same(moved.reported.streams, [], 'no stream is claimed from an old report');

  const sameServer = carryOver(
    assembleMembership(reading({ streams: [], unavailable: 'u' })),
    last,
    now,
    true,
  );
  t.notOk(
    sameServer.reported.servers.some((s) => s.link_lost),
    'still linked to the same server: only aged',
  );
  const unlinked = carryOver(
    assembleMembership(reading({ streams: [], unavailable: 'u' })),
    last,
    now,
    false,
  );
  t.match(
    unlinked.reported.servers.find((s) => s.name === 'n1'),
    { link_lost: /no link to n1/ },
  );

  t.equal(carryOver(healthy, last, now, true), healthy, 'a fresh reading passes through');
  t.equal(carryOver(failed, null, now, true), failed, 'no earlier report: nothing to name');
});
