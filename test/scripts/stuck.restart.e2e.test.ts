/**
 * A node restarted on a store whose own last-applied revision then fails to apply (spec "Node configuration
 * state": an apply that fails leaves `shed`, `isolated` or `stuck`): it has no prior revision to fall back
 * to, so it reads `stuck` (status `unconfigured` first), raises `apply_stuck`, announces the failure once
 * and records it in its history, and retries on the reconcile tick; a later start reads that history, and
 * the first retry that succeeds serves with the alarm cleared.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import t from 'tap';
import { durableOf } from '../../actors/notify/notify.host.js';
import { Streams, Subjects } from '../../bus/index.js';
import { RevisionApplied } from '../../schema/config.js';
import { call, health } from '../harness/api.js';
import { startBusNode } from '../harness/bus-node.js';
import { restartNode, serveAgain } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

const dec = new TextDecoder();
const providers = {
  llm: { main: { type: 'openai-compatible', model: 'm', base_url: 'http://127.0.0.1:9' } },
};
const transports = {
  ops: {
    type: 'webhook',
    url: 'http://127.0.0.1:9/hooks/svc',
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    events: ['webhook_received'],
  },
};

t.test(
  'a restarted node whose own applied revision fails to apply reads stuck with an alarm, records it, retries, then serves',
  async (t) => {
    const { node, bus, nats } = await startBusNode(t);
    const announced = async (): Promise<RevisionApplied[]> => {
      const out: RevisionApplied[] = [];
      for await (const msg of bus.replay(Streams.Config, { subject: Subjects.configRevisionApplied }))
        out.push(RevisionApplied.parse(JSON.parse(dec.decode(msg.data))));
      return out;
    };

    const first = await call(node.url, 'PUT', '/config', {
      name: 'Acme',
      providers,
      roles: [{ name: 'Ada' }],
      notification_transports: transports,
    });
    t.equal(first.status, 201);
    await until(
      () => health(node.url),
      (h) => h['applied_epoch'] === 1 && h['status'] === 'ok',
    );
    let run = node.run;
    // While the node is stopped another client takes the transport's durable as a push consumer: the node
    // cannot pull it, so the apply of its own epoch 1 fails at the restart-required items on the next start.
    run.kill('SIGTERM');
    t.equal(await run.exited, 0);
    const nc = await connect({ servers: nats.url });
    t.teardown(() => nc.close());
    const jsm = await jetstreamManager(nc);
    await jsm.consumers.delete(Streams.Events, durableOf('ops'));
    await jsm.consumers.add(Streams.Events, {
      durable_name: durableOf('ops'),
      deliver_subject: 'squatter.ops',
      ack_policy: 'explicit',
    });
    const failedAt = (rows: RevisionApplied[]): RevisionApplied[] =>
      rows.filter((r) => r.epoch === 1 && r.status === 'failed');

    for (const round of ['first', 'second'] as const) {
      run = round === 'first' ? await serveAgain(t, node) : await restartNode(t, node, run, 'SIGTERM');
      if (round === 'second') {
        const replayed = await run.waitForLog((l) => l.msg === 'node history replayed');
        t.match(replayed, { applied_epoch: 1, failed_epoch: 1, posture: 'stuck' }, 'the history holds it');
      }
      const stuck = await until(
        () => health(node.url),
        (h) => h['posture'] === 'stuck',
        30_000,
      );
      t.match(
        stuck,
        { status: 'unconfigured', configured: false, posture: 'stuck', applied_epoch: 0 },
        `${round} start: stuck, nothing to fall back to`,
      );
      // A second start takes the standing alarm up rather than raising it again (ops/fleet.md "Alarms").
      if (round === 'first')
        await run.waitForLog((l) => l.msg.startsWith('alarm raised') && l['alarm'] === 'apply_stuck', 30_000);
      const raised = await until(
        () => health(node.url),
        (h) => (h['alarms'] as { worst?: string } | undefined)?.worst === 'critical',
        30_000,
      );
      t.ok(raised, `${round} start: a critical alarm`);
      t.match((await call(node.url, 'GET', '/ready')).body, { ready: false, reason: 'unconfigured' });
      // The reconcile tick tries it again; a repeat of the same failure is logged, not announced again.
      await until(
        async () => run.lines.filter((l) => l.msg.startsWith('config apply failed')).length,
        (n) => n >= 2,
        40_000,
      );
      t.equal(
        failedAt(await announced()).length,
        round === 'first' ? 1 : 2,
        `${round} start: the failure announced once`,
      );
      t.match(failedAt(await announced()).at(-1), {
        node: 'node-0',
        revision_id: first.body['revision_id'],
        status: 'failed',
        posture: 'stuck',
        error: /^tool_servers: /,
      });
      t.match(await health(node.url), { posture: 'stuck' }, `${round} start: still stuck between retries`);
    }

    // The squatter leaves: the next retry applies epoch 1 and the node serves.
    await jsm.consumers.delete(Streams.Events, durableOf('ops'));
    const served = await until(
      () => health(node.url),
      (h) => h['status'] === 'ok',
      40_000,
    );
    t.match(served, { posture: 'serve', configured: true, applied_epoch: 1, seats: ['ada'] });
    await run.waitForLog((l) => l.msg.startsWith('alarm cleared') && l['alarm'] === 'apply_stuck', 30_000);
    t.match((await announced()).at(-1), { node: 'node-0', epoch: 1, status: 'applied' });
  },
);
