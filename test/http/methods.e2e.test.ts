/**
 * OPTIONS and TRACE at the gateway (ops/http.md): both are safe methods, so the guard treats them as a GET
 * (never as a write), OPTIONS answers the path's `Allow`, TRACE is 405 and never echoes the request.
 */
import t from 'tap';
import { ApiError } from '../../http/index.js';
import { call, echo, OPS, openAuth, rawClient, startHarness } from './fixtures/gateway-harness.js';

/** One raw request (fetch refuses TRACE); the answer's head and body as text. */
async function raw(port: number, lines: string[]): Promise<{ status: number; head: string; body: string }> {
  const c = await rawClient(port);
  c.socket.write(`${lines.join('\r\n')}\r\nHost: svc\r\nConnection: close\r\n\r\n`);
  await c.closed;
  const text = c.received();
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), head, body };
}

const header = (head: string, name: string): string | undefined =>
  new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1];

const routes = [
  echo('GET', '/org'),
  echo('POST', '/work/items'),
  echo('GET', '/config/:kind/:id'),
  echo('PUT', '/config/roles/:handle'),
  echo('POST', '/webhooks/tracker-a'),
];

t.test(
  'OPTIONS answers 204 with the Allow of the path, without a token where a GET needs none',
  async (t) => {
    const h = await startHarness({ routes });
    t.teardown(() => h.gw.close());
    for (const [path, allow] of [
      ['/org', 'GET'],
      ['/work/items', 'POST'],
      ['/webhooks/tracker-a', 'POST'],
      ['/health', 'GET, HEAD'],
    ] as const) {
      const r = await call(`${h.base}${path}`, { method: 'OPTIONS' });
      t.equal(r.status, 204, `OPTIONS ${path}`);
      t.equal(r.headers.get('allow'), allow, `OPTIONS ${path}: Allow`);
      t.equal(r.text, '', 'no body');
      t.equal(r.headers.get('access-control-allow-origin'), null, 'no CORS: the dashboard is same-origin');
      t.equal(r.headers.get('x-frame-options'), 'DENY', 'the security headers as on every answer');
    }
    const unserved = await call(`${h.base}/nowhere`, { method: 'OPTIONS' });
    t.equal(unserved.status, 404);
    t.equal(unserved.json?.error, 'no_route');
  },
);

t.test(
  'OPTIONS on an always-guarded path, or with anonymous reads off, needs the token a GET needs',
  async (t) => {
    const h = await startHarness({ routes });
    t.teardown(() => h.gw.close());
    const refused = await call(`${h.base}/config/roles/alice`, { method: 'OPTIONS' });
    t.equal(refused.status, 401);
    t.equal(refused.json?.error, 'invalid_token');
    t.equal(refused.headers.get('www-authenticate'), 'Bearer realm="svc"');
    const ok = await call(`${h.base}/config/roles/alice`, {
      method: 'OPTIONS',
      headers: { authorization: OPS },
    });
    t.equal(ok.status, 204);
    t.equal(ok.headers.get('allow'), 'GET, PUT');
    const wrong = await call(`${h.base}/org`, {
      method: 'OPTIONS',
      headers: { authorization: 'Bearer nope' },
    });
    t.equal(wrong.status, 401, 'a wrong token is refused as on a GET');

    const closed = await startHarness({ routes, auth: { ...openAuth, allowAnonymousRead: false } });
    t.teardown(() => closed.gw.close());
    t.equal((await call(`${closed.base}/org`, { method: 'OPTIONS' })).status, 401);
    t.equal(
      (await call(`${closed.base}/org`, { method: 'OPTIONS', headers: { authorization: OPS } })).status,
      204,
    );
  },
);

t.test('OPTIONS is answered while the node drains: it changes nothing', async (t) => {
  const h = await startHarness({ routes, probes: { draining: true } });
  t.teardown(() => h.gw.close());
  const r = await call(`${h.base}/work/items`, { method: 'OPTIONS' });
  t.equal(r.status, 204);
  t.equal(r.headers.get('allow'), 'POST');
});

t.test('TRACE is refused 405 with Allow and never echoes the request', async (t) => {
  const h = await startHarness({ routes });
  t.teardown(() => h.gw.close());
  const r = await raw(h.gw.port, ['TRACE /org HTTP/1.1', 'X-Echo-Me: secret-cookie-value']);
  t.equal(r.status, 405, 'a read path: 405, not the 401 of a write');
  t.equal(header(r.head, 'Allow'), 'GET');
  t.match(JSON.parse(r.body), { error: 'method_not_allowed' });
  t.notMatch(r.head + r.body, /secret-cookie-value/, 'nothing of the request is echoed');
  t.match(header(r.head, 'Content-Type'), /^application\/json/);

  const probe = await raw(h.gw.port, ['TRACE /health HTTP/1.1']);
  t.equal(probe.status, 405);
  t.equal(header(probe.head, 'Allow'), 'GET, HEAD');

  const guarded = await raw(h.gw.port, ['TRACE /config/roles/alice HTTP/1.1']);
  t.equal(guarded.status, 401, 'an always-guarded path keeps its guard');
  t.equal(header(guarded.head, 'WWW-Authenticate'), 'Bearer realm="svc"');
  const authed = await raw(h.gw.port, ['TRACE /config/roles/alice HTTP/1.1', `Authorization: ${OPS}`]);
  t.equal(authed.status, 405);
  t.equal(header(authed.head, 'Allow'), 'GET, PUT');
});

t.test('every 503 and 429 says when to come back, whoever built it', async (t) => {
  const h = await startHarness({
    probes: { ready: false },
    routes: [
      echo('GET', '/keyring', {
        handler: () => {
          throw new ApiError('no_keyring');
        },
      }),
      echo('GET', '/busy', { handler: () => ({ status: 429, body: { error: 'busy' } }) }),
      echo('GET', '/own', { handler: () => ({ status: 503, headers: { 'retry-after': '7' }, body: {} }) }),
    ],
  });
  t.teardown(() => h.gw.close());
  for (const [path, status, after] of [
    ['/keyring', 503, '30'],
    ['/busy', 429, '30'],
    ['/own', 503, '7'],
    ['/ready', 503, '30'],
  ] as const) {
    const r = await call(`${h.base}${path}`);
    t.equal(r.status, status, path);
    t.equal(r.headers.get('retry-after'), after, `${path}: Retry-After`);
  }
});
