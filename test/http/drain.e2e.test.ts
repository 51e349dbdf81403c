import { once } from 'node:events';
import { connect } from 'node:net';
import t from 'tap';
import type { RouteDef } from '../../http/index.js';
import { call, deferred, echo, OPS, rawClient, startHarness } from './fixtures/gateway-harness.js';

async function accepts(port: number): Promise<boolean> {
  const s = connect(port, '127.0.0.1');
  try {
    await once(s, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    s.destroy();
  }
}

/** A route whose handler waits until the test lets it answer; `entered` resolves when it starts. */
function held(method: RouteDef['method'], pattern: string) {
  const entered = deferred();
  const release = deferred();
  const route: RouteDef = {
    method,
    pattern,
    handler: async () => {
      entered.resolve();
      await release.promise;
      return { status: 200, body: { finished: pattern } };
    },
  };
  return { route, entered: entered.promise, release: () => release.resolve() };
}

const raw = (method: string, path: string, headers: Record<string, string> = {}): string =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}Content-Length: 2\r\n\r\n{}`;

t.test(
  'while the node drains, writes and webhooks get 503 draining; reads, probes and 401 stay',
  async (t) => {
    const h = await startHarness({
      probes: { draining: true },
      routes: [echo('POST', '/work/items'), echo('POST', '/webhooks/codehost-a'), echo('GET', '/org')],
    });
    t.teardown(() => h.gw.close());
    for (const [path, headers] of [
      ['/work/items', { authorization: OPS }],
      ['/webhooks/codehost-a', {}],
    ] as const) {
      const r = await call(`${h.base}${path}`, { method: 'POST', headers, body: '{}' });
      t.equal(r.status, 503, path);
      t.equal(r.headers.get('retry-after'), '30');
      t.equal(r.json?.error, 'draining');
      t.type(r.json?.detail, 'string');
      t.type(r.json?.hint, 'string');
    }
    const anonymous = await call(`${h.base}/work/items`, { method: 'POST', body: '{}' });
    t.equal(anonymous.status, 401, 'an unauthenticated write is 401 even while draining');
    t.equal((await call(`${h.base}/org`)).status, 200, 'reads still answer');
    t.equal((await call(`${h.base}/health`)).status, 200);
    t.equal((await call(`${h.base}/ready`)).status, 503);
    t.equal(h.gw.draining(), true);
  },
);

t.test(
  "while the node drains, a coding run's tool bridge is still served (its turn may finish in the grace)",
  async (t) => {
    const h = await startHarness({
      probes: { draining: true },
      routes: [echo('POST', '/mcp/:token'), echo('DELETE', '/mcp/:token'), echo('POST', '/work/items')],
    });
    t.teardown(() => h.gw.close());
    for (const method of ['POST', 'DELETE']) {
      const r = await call(`${h.base}/mcp/run-token`, { method, body: '{}' });
      t.equal(r.status, 200, `${method} /mcp/{token} answered`);
    }
    const write = await call(`${h.base}/work/items`, {
      method: 'POST',
      headers: { authorization: OPS },
      body: '{}',
    });
    t.equal(write.status, 503, 'other writes are still refused');
    t.equal(write.json?.error, 'draining');
  },
);

t.test(
  'drain closes the public listener first, then api.port; probes answer until api.port closes',
  async (t) => {
    const onPublic = held('POST', '/webhooks/codehost-b');
    const onApi = held('GET', '/agents');
    const h = await startHarness({
      withPublic: true,
      routes: [onPublic.route, onApi.route, echo('POST', '/work/items')],
    });
    t.teardown(() => h.gw.close());
    const [apiPort, pubPort] = [h.gw.port, h.gw.publicPort!];

    const webhook = await rawClient(pubPort);
    webhook.socket.write(raw('POST', '/webhooks/codehost-b'));
    await onPublic.entered;
    const agents = await rawClient(apiPort);
    agents.socket.write(raw('GET', '/agents'));
    await onApi.entered;
    t.equal(h.gw.inFlight(), 2);

    const drained = h.gw.drain();
    t.notOk(await accepts(pubPort), 'the public listener stops accepting first');
    t.ok(await accepts(apiPort), 'api.port still accepts while the public listener closes');
    t.equal((await call(`${h.base}/health`)).status, 200, '/health answers');
    t.equal((await call(`${h.base}/ready`)).status, 200, '/ready answers what the node says');
    const write = await call(`${h.base}/work/items`, {
      method: 'POST',
      headers: { authorization: OPS },
      body: '{}',
    });
    t.equal(write.status, 503);
    t.equal(write.json?.error, 'draining');

    onPublic.release();
    t.match(await webhook.waitFor('finished'), /^HTTP\/1\.1 200 /, 'the in-flight webhook finishes');
    await h.waitForLog((l) => l.event === 'listener_closing' && l.listener === 'api');
    t.notOk(await accepts(apiPort), 'then api.port stops accepting');
    onApi.release();
    t.match(await agents.waitFor('finished'), /^HTTP\/1\.1 200 /, 'the in-flight read finishes');
    await drained;
    t.equal(h.gw.inFlight(), 0);
    const order = h.logs
      .filter((l) => String(l.event).startsWith('listener_'))
      .map((l) => `${String(l.event)} ${String(l.listener)}`);
    t.same(order, [
      'listener_closing public',
      'listener_closed public',
      'listener_closing api',
      'listener_closed api',
    ]);
  },
);

t.test('in-flight requests are cut drainCutMs after their listener starts closing', async (t) => {
  const onPublic = held('POST', '/webhooks/codehost-b');
  const onApi = held('GET', '/agents');
  const h = await startHarness({
    withPublic: true,
    routes: [onPublic.route, onApi.route],
    limits: { drainCutMs: 300 },
  });
  t.teardown(() => h.gw.close());
  const webhook = await rawClient(h.gw.publicPort!);
  webhook.socket.write(raw('POST', '/webhooks/codehost-b'));
  const agents = await rawClient(h.gw.port);
  agents.socket.write(raw('GET', '/agents'));
  await Promise.all([onPublic.entered, onApi.entered]);

  const started = performance.now();
  const [publicCut, apiCut] = [
    webhook.closed.then(() => performance.now() - started),
    agents.closed.then(() => performance.now() - started),
  ];
  await h.gw.drain();
  const [p, a] = [await publicCut, await apiCut];
  t.ok(p >= 250 && p < 2_000, `public request cut after ${Math.round(p)} ms`);
  t.ok(
    a >= 550 && a < 4_000,
    `api request cut after ${Math.round(a)} ms, once the public listener had closed`,
  );
  t.equal(webhook.received(), '', 'a cut request gets no answer');
  t.equal(agents.received(), '');
  t.ok(h.logs.some((l) => l.event === 'listener_closed' && l.cut === 1 && l.listener === 'api'));

  onApi.release();
  onPublic.release();
  const dropped = await h.waitForLog((l) => l.event === 'answer_dropped' && l.route === '/agents');
  t.equal(dropped.status, 200, 'the late answer is dropped, not written to a closed response');
});

t.test(
  'drain closes idle keep-alive connections and resolves at once when nothing is in flight',
  async (t) => {
    const h = await startHarness();
    const c = await rawClient(h.gw.port);
    c.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await c.waitFor('"status"');
    await h.gw.drain();
    await c.closed;
    t.notOk(await accepts(h.gw.port));
    await h.gw.drain();
    t.pass('a second drain is harmless');
  },
);

t.test('close cuts every connection at once', async (t) => {
  const onApi = held('GET', '/agents');
  const h = await startHarness({ routes: [onApi.route] });
  const c = await rawClient(h.gw.port);
  c.socket.write(raw('GET', '/agents'));
  await onApi.entered;
  await h.gw.close();
  await c.closed;
  t.equal(c.received(), '');
  t.notOk(await accepts(h.gw.port));
  onApi.release();
});

t.test('close during a drain cuts what is in flight at once', async (t) => {
  const onApi = held('GET', '/agents');
  const h = await startHarness({ routes: [onApi.route], limits: { drainCutMs: 60_000 } });
  const c = await rawClient(h.gw.port);
  c.socket.write(raw('GET', '/agents'));
  await onApi.entered;
  const drained = h.gw.drain();
  await h.gw.close();
  await Promise.all([drained, c.closed]);
  t.equal(c.received(), '', 'cut without an answer, long before the drain deadline');
  onApi.release();
});
