/**
 * A node left `isolated` by a failed apply comes back `isolated` from a stop, read from its own apply
 * announcements (spec "Node configuration state"): told to stop (SIGTERM) or killed (SIGKILL), it serves the
 * revision it last applied again, keeps the failed one active in the store without trying it again, still
 * answers `/ready` 200 on an ingress node, and the next activation moves it back to `serve`.
 */
import t from 'tap';
import { call, health } from '../harness/api.js';
import { startNatsServer } from '../harness/nats-server.js';
import { restartNode, startNode } from '../harness/serve-node.js';
import { squattedTransport } from '../harness/squatted-transport.js';
import { until } from '../harness/until.js';

const providers = {
  llm: { main: { type: 'openai-compatible', model: 'm', base_url: 'http://127.0.0.1:9' } },
};

t.test(
  'an isolated node stopped or killed comes back isolated on the revision it last applied',
  async (t) => {
    const nats = await startNatsServer({ t });
    const node = await startNode(t, '', `jetstream, url: "${nats.url}"`);
    const first = await call(node.url, 'PUT', '/config', {
      name: 'Acme',
      providers,
      roles: [{ name: 'Ada' }],
    });
    t.equal(first.status, 201);
    await until(
      () => health(node.url),
      (h) => h['applied_epoch'] === 1 && h['status'] === 'ok',
    );

    // Another client holds the transport's durable as a push consumer: the node cannot pull it, so the
    // restart-required items fail and the apply of epoch 2 rolls back.
    const failing = await call(node.url, 'PUT', '/config', {
      name: 'Acme',
      providers,
      roles: [{ name: 'Ada' }, { name: 'Bo' }],
      notification_transports: await squattedTransport(t, nats.url),
    });
    t.equal(failing.status, 201);
    const before = await until(
      () => health(node.url),
      (h) => h['status'] === 'isolated',
    );
    t.match(before, { posture: 'isolated', configured: true, applied_epoch: 1, seats: ['ada'] });
    const revisions = (await call(node.url, 'GET', '/config/revisions')).body;

    let run = node.run;
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      run = await restartNode(t, node, run, signal);
      const replayed = await run.waitForLog((l) => l.msg === 'node history replayed');
      t.match(replayed, { applied_epoch: 1, failed_epoch: 2, posture: 'isolated' }, `${signal}: its history`);
      await run.waitForLog((l) => l.msg === 'config restored');
      const after = await until(
        () => health(node.url),
        (h) => h['applied_epoch'] === 1 && h['status'] !== 'unconfigured',
        20_000,
      );
      t.match(
        after,
        { status: 'isolated', posture: 'isolated', configured: true, applied_epoch: 1, seats: ['ada'] },
        `${signal}: isolated on the revision it last applied`,
      );
      const ready = await call(node.url, 'GET', '/ready');
      t.same(ready, { status: 200, body: { ready: true } }, `${signal}: isolated still answers /ready 200`);
      t.same(
        (await call(node.url, 'GET', '/config/revisions')).body,
        revisions,
        `${signal}: the same revisions`,
      );
      t.match(
        (await call(node.url, 'GET', '/config')).body,
        { notification_transports: { ops: { type: 'webhook' } } },
        `${signal}: the failed revision is still the active one`,
      );
    }
    t.notOk(
      run.lines.some((l) => l.msg.startsWith('config apply failed') || l.msg === 'config applied'),
      'the failed epoch was not tried again, nor announced',
    );

    // The next activation moves the node back to serve.
    const next = await call(node.url, 'PUT', '/config', {
      name: 'Acme',
      providers,
      roles: [{ name: 'Ada' }, { name: 'Bo' }],
    });
    t.equal(next.status, 201);
    const served = await until(
      () => health(node.url),
      (h) => h['applied_epoch'] === 3,
      20_000,
    );
    t.match(served, { status: 'ok', posture: 'serve', seats: ['ada', 'bo'] });
  },
);
