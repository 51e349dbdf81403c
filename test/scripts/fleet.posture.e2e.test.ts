/**
 * A peer's `/fleet` tells a stuck node from a fresh one (ops/fleet.md "The fleet routes"): two `svc serve`
 * nodes on one nats-server apply a company; the second is stopped, and while it is down another client takes
 * the notification transport's durable as a push consumer, so its next start cannot apply its own epoch
 * (ops/fleet.md "Alarms": a restart failing its own last-applied epoch). It runs nothing (posture `stuck`,
 * `apply_stuck`, applied epoch 0, as a fresh node's); the first node's `/fleet` row for it carries the
 * posture and the alarm, as the second announced them in its presence record.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import t from 'tap';
import { durableOf } from '../../actors/notify/notify.host.js';
import { Streams } from '../../bus/index.js';
import { localProviders } from '../fixtures/llm/providers.js';
import { call } from '../harness/api.js';
import { restartFleetNode, startFleetNode, until, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';

type Json = Record<string, unknown>;

const health = async (node: FleetNode): Promise<Json> => (await call(node.url, 'GET', '/health')).body;
const rows = async (node: FleetNode): Promise<Json[]> =>
  ((await call(node.url, 'GET', '/fleet')).body['nodes'] as Json[] | undefined) ?? [];
const rowOf = (all: Json[], id: string): Json | undefined => all.find((row) => row['id'] === id);
const alarmsOf = (row: Json | undefined): Json | null => (row?.['alarms'] as Json | null | undefined) ?? null;

t.test("a restarted node stuck on its own epoch reads stuck with its alarm on a peer's /fleet", async (t) => {
  const nats = await startNatsServer({ t });
  const a = await startFleetNode(t, 'node-a', nats.url);
  let b = await startFleetNode(t, 'node-b', nats.url);
  const put = await call(a.url, 'PUT', '/config', {
    name: 'Acme',
    providers: localProviders('http://127.0.0.1:9/v1'),
    roles: [{ name: 'Ada' }],
    notification_transports: {
      ops: {
        type: 'webhook',
        url: 'http://127.0.0.1:9/hooks/svc',
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        events: ['webhook_received'],
      },
    },
  });
  t.equal(put.status, 201, 'the company is stored');
  const serving = await until(
    () => rows(a),
    (all) =>
      ['node-a', 'node-b'].every(
        (id) =>
          rowOf(all, id)?.['applied_epoch'] === 1 &&
          rowOf(all, id)?.['posture'] === 'serve' &&
          alarmsOf(rowOf(all, id)) !== null,
      ),
    30_000,
  );
  t.match(
    rowOf(serving, 'node-b'),
    { applied_epoch: 1, posture: 'serve', alarms: { count: 0, names: [] } },
    'both serve, without alarms',
  );
  t.notOk('worst' in (alarmsOf(rowOf(serving, 'node-b')) ?? {}), 'no worst at 0');

  b.run.kill('SIGTERM');
  t.equal(await b.run.exited, 0);
  const nc = await connect({ servers: nats.url });
  t.teardown(() => nc.close());
  const jsm = await jetstreamManager(nc);
  await jsm.consumers.delete(Streams.Events, durableOf('ops'));
  await jsm.consumers.add(Streams.Events, {
    durable_name: durableOf('ops'),
    deliver_subject: 'squatter.ops',
    ack_policy: 'explicit',
  });
  b = await restartFleetNode(t, b);
  t.match(
    await until(
      () => health(b),
      (h) => (h['alarms'] as Json | undefined)?.['worst'] === 'critical',
      30_000,
    ),
    { status: 'unconfigured', posture: 'stuck', applied_epoch: 0, alarms: { count: 1, worst: 'critical' } },
    'its own /health says it is stuck',
  );

  const fleet = await until(
    () => rows(a),
    (all) => rowOf(all, 'node-b')?.['posture'] === 'stuck' && alarmsOf(rowOf(all, 'node-b'))?.['count'] === 1,
    20_000,
  );
  t.match(
    rowOf(fleet, 'node-b'),
    { applied_epoch: 0, posture: 'stuck', alarms: { count: 1, worst: 'critical', names: ['apply_stuck'] } },
    'the peer reads it stuck, with the alarm',
  );
  t.match(rowOf(fleet, 'node-a'), { applied_epoch: 1, posture: 'serve', alarms: { count: 0 } });
  // The stuck node answers the same row for itself.
  t.match(rowOf(await rows(b), 'node-b'), { posture: 'stuck', alarms: { names: ['apply_stuck'] } });
});
