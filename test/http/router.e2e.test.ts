import t from 'tap';
import { ApiError } from '../../http/index.js';
import { call, echo, OPS, rawClient, startHarness } from './fixtures/gateway-harness.js';

t.test('an unserved path answers 404 no_route naming method and path', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.gw.close());
  const r = await call(`${h.base}/nowhere/at/all`);
  t.equal(r.status, 404);
  t.equal(r.json?.error, 'no_route');
  t.match(r.json?.detail, /GET \/nowhere\/at\/all/);
  t.type(r.json?.hint, 'string');
});

t.test('a long unserved path is quoted cut in the no_route and method_not_allowed details', async (t) => {
  const h = await startHarness({ routes: [echo('GET', '/config/:kind/:id')] });
  t.teardown(() => h.gw.close());
  const long = 'x'.repeat(4000);
  const missing = await call(`${h.base}/nowhere/${long}`);
  t.equal(missing.json?.error, 'no_route');
  t.ok(String(missing.json?.detail).length < 200, 'the detail quotes a cut path');
  t.match(missing.json?.detail, /GET \/nowhere\/x+…/);
  const other = await call(`${h.base}/config/roles/${long}`, {
    method: 'DELETE',
    headers: { authorization: OPS },
  });
  t.equal(other.json?.error, 'method_not_allowed');
  t.ok(String(other.json?.detail).length < 250, 'the detail quotes a cut path');
  t.match(other.json?.detail, /DELETE \/config\/roles\/x+…/);
});

t.test('a path served under other methods answers 405 with Allow', async (t) => {
  const h = await startHarness({
    routes: [echo('GET', '/config/:kind/:id'), echo('PUT', '/config/roles/:handle')],
  });
  t.teardown(() => h.gw.close());
  const r = await call(`${h.base}/config/roles/alice`, { method: 'DELETE', headers: { authorization: OPS } });
  t.equal(r.status, 405);
  t.equal(r.json?.error, 'method_not_allowed');
  t.equal(r.headers.get('allow'), 'GET, PUT', 'in one order, whichever route is more specific');
});

t.test(
  'a path whose parameters a route does not serve is 404 under every method, not in Allow',
  async (t) => {
    const kinds = (params: Readonly<Record<string, string>>): boolean => params['kind'] === 'roles';
    const h = await startHarness({
      routes: [
        echo('GET', '/config/:kind/:id', { serves: kinds, unservedHint: 'Entity kinds are roles.' }),
        echo('PUT', '/config/:kind/:id', { serves: kinds, unservedHint: 'Entity kinds are roles.' }),
        echo('GET', '/config/revisions/:id'),
      ],
    });
    t.teardown(() => h.gw.close());
    for (const method of ['GET', 'PUT', 'DELETE', 'POST']) {
      const r = await call(`${h.base}/config/bogus/x`, { method, headers: { authorization: OPS } });
      t.equal(r.status, 404, method);
      t.equal(r.json?.error, 'no_route', method);
      t.equal(r.json?.hint, 'Entity kinds are roles.', `${method}: the hint names what is served there`);
    }
    const revision = await call(`${h.base}/config/revisions/x`, {
      method: 'PUT',
      headers: { authorization: OPS },
    });
    t.equal(revision.status, 405);
    t.equal(revision.headers.get('allow'), 'GET', 'only the route that serves the path');
    const role = await call(`${h.base}/config/roles/x`, {
      method: 'DELETE',
      headers: { authorization: OPS },
    });
    t.equal(role.headers.get('allow'), 'GET, PUT');
  },
);

t.test('GET /health is 200 with the node body, even draining and unconfigured', async (t) => {
  const h = await startHarness({ probes: { configured: false, draining: true } });
  t.teardown(() => h.gw.close());
  for (const path of ['/health', '/health/']) {
    const r = await call(`${h.base}${path}`);
    t.equal(r.status, 200, path);
    t.same(r.json, { status: 'unconfigured', draining: true });
  }
});

t.test('GET /ready is 200 {ready:true} or 503 with the node body; trailing slash works', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.gw.close());
  t.same((await call(`${h.base}/ready`)).json, { ready: true });
  h.probes.ready = false;
  const r = await call(`${h.base}/ready/`);
  t.equal(r.status, 503);
  t.same(r.json, { ready: false, reason: 'unconfigured' });
});

t.test('HEAD answers a GET route’s head without its body, the probes included', async (t) => {
  const h = await startHarness({ routes: [echo('GET', '/org')] });
  t.teardown(() => h.gw.close());
  const c = await rawClient(h.gw.port);
  // A GET behind the two HEADs shows where each answer ends: any body would sit before the next head.
  c.socket.write(
    'HEAD /health HTTP/1.1\r\nHost: x\r\n\r\nHEAD /org HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n',
  );
  await c.waitFor('"status":"ok"');
  const [first, second, third] = c.received().split(/(?=HTTP\/1\.1 )/);
  t.match(first, /^HTTP\/1\.1 200 OK\r\n/);
  t.ok(first!.endsWith('\r\n\r\n'), 'no body after the probe head');
  t.match(second, /^HTTP\/1\.1 200 OK\r\n/);
  t.match(second, /content-type: application\/json/i, 'the GET’s head');
  t.ok(second!.endsWith('\r\n\r\n'), 'no body after the route head');
  t.match(third, /^HTTP\/1\.1 200 OK\r\n/);
  c.socket.destroy();
});

t.test('HEAD is not served where a GET acts: webhook, landing and opted-out routes', async (t) => {
  const h = await startHarness({
    routes: [
      { ...echo('GET', '/webhooks/chat-oauth'), kind: 'landing' },
      echo('GET', '/webhooks/tracker-b'),
      { ...echo('GET', '/operator/mcp'), head: false },
    ],
  });
  t.teardown(() => h.gw.close());
  for (const path of ['/webhooks/chat-oauth', '/webhooks/tracker-b', '/operator/mcp']) {
    const r = await call(`${h.base}${path}`, { method: 'HEAD', headers: { authorization: OPS } });
    t.equal(r.status, 405, path);
    t.equal(r.headers.get('allow'), 'GET', path);
  }
});

t.test('a probe under another method is 405 with Allow: GET, HEAD', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.gw.close());
  const r = await call(`${h.base}/health`, { method: 'POST' });
  t.equal(r.status, 405);
  t.equal(r.headers.get('allow'), 'GET, HEAD');
});

t.test('params are decoded, literal segments win over parameters, a wildcard takes the rest', async (t) => {
  const h = await startHarness({
    routes: [
      echo('GET', '/agents/:id'),
      echo('GET', '/agents/activity'),
      echo('GET', '/static/*', { kind: 'dashboard' }),
    ],
  });
  t.teardown(() => h.gw.close());
  t.same((await call(`${h.base}/agents/al%20ice`)).json?.params, { id: 'al ice' });
  t.equal((await call(`${h.base}/agents/activity`)).json?.route, '/agents/activity');
  t.same((await call(`${h.base}/static/js/app.js`)).json?.params, { '*': 'js/app.js' });
  t.equal((await call(`${h.base}/static/`)).status, 404, 'a wildcard needs something to take');
});

t.test(
  'a pattern whose first segment is a parameter serves every first segment, below literal first segments',
  async (t) => {
    const h = await startHarness({
      routes: [
        echo('GET', '/:space/items'),
        echo('GET', '/agents/:id'),
        echo('GET', '/*', { kind: 'dashboard' }),
      ],
    });
    t.teardown(() => h.gw.close());
    const get = (path: string) => call(`${h.base}${path}`, { headers: { authorization: OPS } });
    t.equal((await get('/agents/items')).json?.route, '/agents/:id', 'a literal first segment outranks');
    t.same((await get('/agents/items')).json?.params, { id: 'items' });
    t.same((await get('/work/items')).json?.params, { space: 'work' }, 'a first segment no literal names');
    t.equal((await get('/agents/x/y')).json?.route, '/*', 'the wildcard behind both');
    t.equal((await get('/elsewhere')).json?.route, '/*');
  },
);

t.test('a handler answers JSON, text or bytes with the matching content type', async (t) => {
  const h = await startHarness({
    routes: [
      { method: 'GET', pattern: '/j', handler: () => ({ status: 201, body: { a: 1 } }) },
      { method: 'GET', pattern: '/s', handler: () => ({ status: 200, body: 'plain' }) },
      { method: 'GET', pattern: '/b', handler: () => ({ status: 200, body: Buffer.from([1, 2, 3]) }) },
      { method: 'GET', pattern: '/n', handler: () => ({ status: 204 }) },
    ],
  });
  t.teardown(() => h.gw.close());
  const j = await call(`${h.base}/j`);
  t.equal(j.status, 201);
  t.equal(j.headers.get('content-type'), 'application/json; charset=utf-8');
  t.equal((await call(`${h.base}/s`)).headers.get('content-type'), 'text/plain; charset=utf-8');
  t.equal((await call(`${h.base}/b`)).headers.get('content-type'), 'application/octet-stream');
  t.equal((await call(`${h.base}/n`)).status, 204);
});

t.test('a thrown ApiError renders {error, detail, hint, ...extra} with the catalogue status', async (t) => {
  const h = await startHarness({
    routes: [
      {
        method: 'PATCH',
        pattern: '/config',
        handler: () => {
          throw new ApiError('no_active_revision', { variant: 'on_write', extra: { error: 'spoof', x: 1 } });
        },
      },
    ],
  });
  t.teardown(() => h.gw.close());
  const r = await call(`${h.base}/config`, { method: 'PATCH', headers: { authorization: OPS }, body: '{}' });
  t.equal(r.status, 409);
  t.equal(r.json?.error, 'no_active_revision', 'extra cannot replace the code');
  t.equal(r.json?.x, 1);
  t.type(r.json?.hint, 'string');
});

t.test('a handler that fails unexpectedly gets a codeless 500 and the process keeps serving', async (t) => {
  const h = await startHarness({
    routes: [
      {
        method: 'GET',
        pattern: '/boom',
        handler: () => {
          throw new Error('kaput');
        },
      },
      { method: 'GET', pattern: '/async-boom', handler: () => Promise.reject(new Error('later')) },
      { method: 'GET', pattern: '/bigint', handler: () => ({ status: 200, body: { n: 1n } }) },
    ],
  });
  t.teardown(() => h.gw.close());
  for (const path of ['/boom', '/async-boom', '/bigint']) {
    const r = await call(`${h.base}${path}`);
    t.equal(r.status, 500, path);
    t.equal(r.json?.error, undefined, 'no code: the outcome is unknown');
    t.type(r.json?.detail, 'string');
  }
  t.ok(h.logs.some((l) => l.event === 'handler_failed' && l.route === '/boom'));
  t.equal((await call(`${h.base}/health`)).status, 200);
});

t.test('an unconfigured node answers webhook deliveries 503 without a code, with Retry-After', async (t) => {
  const h = await startHarness({
    probes: { configured: false },
    routes: [
      echo('POST', '/webhooks/codehost-a'),
      echo('POST', '/webhooks/chat/:handle', { servesUnconfigured: true }),
      echo('GET', '/org'),
    ],
  });
  t.teardown(() => h.gw.close());
  const r = await call(`${h.base}/webhooks/codehost-a`, { method: 'POST', body: '{}' });
  t.equal(r.status, 503);
  t.equal(r.headers.get('retry-after'), '30');
  t.equal(r.json?.error, undefined, 'no code: nothing is promised about the delivery');
  t.type(r.json?.detail, 'string');
  const challenge = await call(`${h.base}/webhooks/chat/alice`, { method: 'POST', body: '{}' });
  t.equal(challenge.status, 200, 'a route may opt to serve while unconfigured');
  t.equal((await call(`${h.base}/org`)).status, 200, 'the API keeps serving so an operator can configure');
  h.probes.configured = true;
  t.equal((await call(`${h.base}/webhooks/codehost-a`, { method: 'POST', body: '{}' })).status, 200);
});
