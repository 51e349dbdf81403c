import t from 'tap';
import type { RouteDef } from '../../http/index.js';
import { call, deferred, echo, OPS, rawClient, startHarness } from './fixtures/gateway-harness.js';

const MiB = 1024 * 1024;

/** A route that counts how often its handler ran. */
function counted(
  method: RouteDef['method'],
  pattern: string,
  extra: Partial<RouteDef> = {},
): RouteDef & { runs: number } {
  const route = {
    ...echo(method, pattern, extra),
    runs: 0,
    handler: (req: Parameters<RouteDef['handler']>[0]) => {
      route.runs++;
      return { status: 200, body: { bytes: req.body.length } };
    },
  };
  return route;
}

const head = (method: string, path: string, headers: Record<string, string>): string =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

const parseBody = (raw: string): Record<string, unknown> =>
  JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

t.test(
  'a body not delivered within its deadline is 400 unreadable_body and the handler never runs',
  async (t) => {
    const api = counted('POST', '/work/items');
    const hook = counted('POST', '/webhooks/codehost-b');
    const h = await startHarness({ routes: [api, hook], limits: { bodyTimeoutMs: 300 } });
    t.teardown(() => h.gw.close());
    for (const [path, headers, event] of [
      ['/work/items', { authorization: OPS }, 'body_unreadable'],
      ['/webhooks/codehost-b', {}, 'webhook_body_unreadable'],
    ] as const) {
      const c = await rawClient(h.gw.port);
      c.socket.write(head('POST', path, { ...headers, 'content-length': '100' }) + 'only ten..');
      const raw = await c.waitFor('"hint"');
      t.match(raw, /^HTTP\/1\.1 400 /, path);
      t.equal(parseBody(raw).error, 'unreadable_body');
      await c.closed;
      t.pass('the connection is closed behind the answer');
      const line = await h.waitForLog((l) => l.event === event);
      t.equal(line.reason, 'timeout');
      t.equal(line.route, path);
    }
    t.equal(api.runs + hook.runs, 0);
  },
);

t.test(
  'webhook bodies up to 25 MiB are read; a larger declared body is refused before it is read',
  async (t) => {
    const hook = counted('POST', '/webhooks/tracker-b');
    const h = await startHarness({ routes: [hook] });
    t.teardown(() => h.gw.close());
    const full = await call(`${h.base}/webhooks/tracker-b`, {
      method: 'POST',
      body: Buffer.alloc(25 * MiB, 97),
    });
    t.equal(full.status, 200);
    t.equal(full.json?.bytes, 25 * MiB);

    const c = await rawClient(h.gw.port);
    c.socket.write(
      head('POST', '/webhooks/tracker-b', { 'content-length': String(25 * MiB + 1) }) + 'a'.repeat(1000),
    );
    const raw = await c.waitFor('"hint"');
    t.match(raw, /^HTTP\/1\.1 413 /);
    const body = parseBody(raw);
    t.equal(body.error, 'body_too_large');
    t.equal(body.max_bytes, 25 * MiB);
    await c.closed;
    t.equal(hook.runs, 1, 'only the body within the limit reached the handler');
    t.equal((await h.waitForLog((l) => l.event === 'webhook_body_unreadable')).reason, 'too_large');
  },
);

t.test('a chunked webhook body that grows past the limit is cut with 413 body_too_large', async (t) => {
  const hook = counted('POST', '/webhooks/monitor');
  const h = await startHarness({ routes: [hook], limits: { webhookBodyMaxBytes: 1000 } });
  t.teardown(() => h.gw.close());
  const c = await rawClient(h.gw.port);
  const chunk = 'b'.repeat(600);
  c.socket.write(head('POST', '/webhooks/monitor', { 'transfer-encoding': 'chunked' }));
  c.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  c.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  const raw = await c.waitFor('"hint"');
  t.match(raw, /^HTTP\/1\.1 413 /);
  t.equal(parseBody(raw).error, 'body_too_large');
  t.equal(parseBody(raw).max_bytes, 1000);
  t.equal(hook.runs, 0);
});

t.test('API bodies are capped at 8 MiB by default, and a route may set less', async (t) => {
  const put = counted('PUT', '/config');
  const secret = counted('PUT', '/secrets/:name', { maxBodyBytes: 64 * 1024 });
  const h = await startHarness({ routes: [put, secret] });
  t.teardown(() => h.gw.close());
  const ok = await call(`${h.base}/config`, {
    method: 'PUT',
    headers: { authorization: OPS },
    body: Buffer.alloc(8 * MiB),
  });
  t.equal(ok.status, 200);
  // Refusals are read over a raw socket: the gateway answers from the declared length and hangs up.
  for (const [path, limit] of [
    ['/config', 8 * MiB],
    ['/secrets/A', 64 * 1024],
  ] as const) {
    const c = await rawClient(h.gw.port);
    c.socket.write(
      head('PUT', path, { authorization: OPS, 'content-length': String(limit + 1) }) + 'x'.repeat(100),
    );
    const raw = await c.waitFor('"hint"');
    t.match(raw, /^HTTP\/1\.1 413 /, path);
    t.equal(parseBody(raw).error, 'body_too_large');
    t.equal(parseBody(raw).max_bytes, limit);
    await c.closed;
  }
  const s1 = await call(`${h.base}/secrets/A`, {
    method: 'PUT',
    headers: { authorization: OPS },
    body: Buffer.alloc(64 * 1024),
  });
  t.equal(s1.status, 200);
  t.equal(put.runs + secret.runs, 2);
});

t.test(
  'a sender that hangs up mid-body is logged client_disconnected and its handler never runs',
  async (t) => {
    const hook = counted('POST', '/webhooks/wiki');
    const h = await startHarness({ routes: [hook] });
    t.teardown(() => h.gw.close());
    const c = await rawClient(h.gw.port);
    c.socket.write(head('POST', '/webhooks/wiki', { 'content-length': '5000' }) + 'x'.repeat(2000));
    const arrived = h.waitForLog((l) => l.event === 'client_disconnected');
    // Hang up once the gateway holds the request (it is in flight from its headers on).
    while (h.gw.inFlight() === 0) await new Promise((r) => setImmediate(r));
    c.socket.destroy();
    const line = await arrived;
    t.equal(line.phase, 'body');
    t.equal(line.route, '/webhooks/wiki');
    t.equal(hook.runs, 0);
    t.equal(h.gw.inFlight(), 0);
    t.equal((await call(`${h.base}/health`)).status, 200, 'still serving');
  },
);

t.test('an answer to a client that left is never written, and the node keeps serving', async (t) => {
  const release = deferred();
  const started = deferred();
  const h = await startHarness({
    routes: [
      {
        method: 'GET',
        pattern: '/slow',
        handler: async () => {
          started.resolve();
          await release.promise;
          return { status: 200, body: { late: true } };
        },
      },
    ],
  });
  t.teardown(() => h.gw.close());
  const c = await rawClient(h.gw.port);
  c.socket.write(head('GET', '/slow', {}));
  await started.promise;
  const gone = h.waitForLog((l) => l.event === 'client_disconnected');
  c.socket.destroy();
  t.equal((await gone).phase, 'handler');
  release.resolve();
  const dropped = await h.waitForLog((l) => l.event === 'answer_dropped');
  t.equal(dropped.status, 200);
  t.equal((await call(`${h.base}/health`)).status, 200, 'no crash from writing to an aborted response');
});
