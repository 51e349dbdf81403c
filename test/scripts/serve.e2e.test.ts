import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runSvc } from '../harness/child.js';
import { openConnection } from '../harness/raw-http.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

t.test('a new node serves /health as unconfigured and /ready as 503 unconfigured', async (t) => {
  const { run, port } = await startNode(t);
  const health = await fetch(`http://127.0.0.1:${port}/health`);
  t.equal(health.status, 200);
  const body = (await health.json()) as Record<string, unknown>;
  t.match(body, {
    status: 'unconfigured',
    configured: false,
    node: 'node-0',
    queue: 'memory',
    shutting_down: false,
    applied_epoch: 0,
  });
  t.match(body['version'], /^\d+\.\d+\.\d+/);
  const ready = await fetch(`http://127.0.0.1:${port}/ready/`);
  t.equal(ready.status, 503);
  t.match(await ready.json(), { ready: false, reason: 'unconfigured', configured: false, draining: false });
  run.kill('SIGTERM');
  t.equal(await run.exited, 0);
});

t.test(
  'SIGTERM drains: probes turn, writes answer 503 draining (401 without a token), then exit 0',
  async (t) => {
    const { run, port } = await startNode(t);
    // Connections opened before the signal stay usable while the listener closes.
    const probe = await openConnection(port);
    const probe2 = await openConnection(port);
    const writer = await openConnection(port);
    const anonymous = await openConnection(port);
    const slow = await openConnection(port);
    t.teardown(() => [probe, probe2, writer, anonymous, slow].forEach((c) => c.close()));
    t.equal((await probe.request('GET', '/health')).status, 200);
    // An in-flight request (its body still missing) holds the drain open for up to 5 s.
    slow.write(
      `PUT /config HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{"name":`,
    );
    // Wait until the node counts that request as in flight (health reports it), then signal.
    for (let i = 0; i < 100; i += 1) {
      const body = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { in_flight: number };
      if (body.in_flight >= 1) break;
    }
    run.kill('SIGTERM');
    await run.waitForLog((line) => line.msg === 'drain started');
    const ready = await probe.request('GET', '/ready');
    t.equal(ready.status, 503);
    t.match(JSON.parse(ready.body), { ready: false, reason: 'draining', draining: true });
    // Answers while draining close their connection, so each request gets its own.
    const health = await probe2.request('GET', '/health');
    t.equal(health.status, 200);
    t.match(JSON.parse(health.body), { status: 'shutting_down', shutting_down: true });
    const write = await writer.request('PUT', '/config', {
      headers: { authorization: `Bearer ${TOKEN}`, 'x-summary': 's' },
      body: '{}',
    });
    t.equal(write.status, 503);
    t.equal(write.headers['retry-after'], '30');
    t.match(JSON.parse(write.body), { error: 'draining', detail: String, hint: String });
    const unauthenticated = await anonymous.request('PUT', '/config', { body: '{}' });
    t.equal(unauthenticated.status, 401, 'an unauthenticated write answers 401 even while draining');
    t.equal(await run.exited, 0);
    t.ok(run.lines.some((l) => l.msg === 'drain finished'));
  },
);

t.test(
  'the node persists under store_dir: a revision pushed before a restart is active after it',
  async (t) => {
    const first = await startNode(t);
    const company = { name: 'Acme', roles: [{ name: 'Ada' }] };
    const put = await fetch(`http://127.0.0.1:${first.port}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'first' },
      body: JSON.stringify(company),
    });
    t.equal(put.status, 201);
    // The write answers once the revision is active; the node applies it right after (README Known limits).
    await first.run.waitForLog((line) => line.msg === 'config applied' && line['epoch'] === 1);
    const health = (await (await fetch(`http://127.0.0.1:${first.port}/health`)).json()) as Record<
      string,
      unknown
    >;
    t.match(health, { status: 'ok', configured: true, applied_epoch: 1 });
    first.run.kill('SIGTERM');
    t.equal(await first.run.exited, 0);
  },
);

t.test('api.port 0 binds nothing and the node still runs until told to stop', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-serve-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'config.yaml');
  writeFileSync(file, 'api: {port: 0}\n');
  const run = runSvc(['serve'], { SVC_CONFIG: file });
  t.teardown(() => run.kill('SIGKILL'));
  const serving = await run.waitForLog((line) => line.msg === 'node serving');
  t.equal(serving['api_port'], 0);
  run.kill('SIGINT');
  t.equal(await run.exited, 0);
  t.ok(
    run.lines.some((l) => l.msg === 'termination signal'),
    'the node was still running when the signal came',
  );
});

t.test(
  'a node without ingress serves the tool bridge only when it has the seats role (and a bridge URL)',
  async (t) => {
    const env = { SVC_SANDBOX_OTEL_RECEIVER_URL: 'http://127.0.0.1:9/' };
    const bridge = async (roles: string): Promise<{ status: number; error: unknown }> => {
      const { run, url } = await startNode(t, `node: {roles: [${roles}]}`, 'memory', env);
      const res = await fetch(`${url}/mcp/${'A'.repeat(43)}`, { method: 'POST', body: '{}' });
      const body = (await res.json()) as { error?: unknown };
      run.kill('SIGTERM');
      t.equal(await run.exited, 0);
      return { status: res.status, error: body.error };
    };
    t.same(await bridge('data'), { status: 404, error: 'no_route' }, 'a data node has no bridge');
    t.same(
      await bridge('seats'),
      { status: 401, error: 'invalid_token' },
      'a seats node serves it (an unknown run token is refused)',
    );
  },
);
