import t from 'tap';
import { ApiError, assertCompanyWriter } from '../../http/index.js';
import type { AuthSettings, RouteDef } from '../../http/index.js';
import { call, CI, echo, OPS, openAuth, startHarness } from './fixtures/gateway-harness.js';

const alwaysGuarded: Array<[string, string]> = [
  ['GET', '/config'],
  ['GET', '/config/revisions'],
  ['GET', '/secrets'],
  ['GET', '/secrets/NAME'],
  ['GET', '/setup/integrations'],
  ['GET', '/operator/mcp'],
  ['GET', '/fleet'],
  ['GET', '/fleet/broker'],
  ['GET', '/access'],
  ['GET', '/credential-pool'],
  ['GET', '/backups'],
  ['GET', '/mcp-servers'],
  ['GET', '/work/retention'],
  ['GET', '/work/retention/maintenance'],
  ['POST', '/backup'],
];

t.test('always-guarded paths refuse a read without a token, even when reads are open', async (t) => {
  // A route that claims to be open under /config is guarded anyway.
  const h = await startHarness({ routes: [echo('GET', '/config', { access: 'open' })] });
  t.teardown(() => h.gw.close());
  for (const [method, path] of alwaysGuarded) {
    const r = await call(`${h.base}${path}`, { method });
    t.equal(r.status, 401, `${method} ${path}`);
    t.equal(r.json?.error, 'invalid_token');
    t.equal(
      r.headers.get('www-authenticate'),
      'Bearer realm="svc"',
      'no credential sent: no error (RFC 6750 3.1)',
    );
    const ok = await call(`${h.base}${path}`, { method, headers: { authorization: OPS } });
    t.equal(ok.status, path === '/config' ? 200 : 404, `${method} ${path} with a token`);
  }
});

t.test('writes need a token; reads are open by default and see no actor', async (t) => {
  const h = await startHarness({ routes: [echo('POST', '/work/items'), echo('GET', '/org')] });
  t.teardown(() => h.gw.close());
  t.equal((await call(`${h.base}/work/items`, { method: 'POST' })).status, 401);
  const w = await call(`${h.base}/work/items`, { method: 'POST', headers: { authorization: OPS } });
  t.equal(w.status, 200);
  t.same(w.json?.actor, { id: 'ops', kind: 'operator' });
  const r = await call(`${h.base}/org`);
  t.equal(r.status, 200);
  t.equal(r.json?.actor, null);
  t.same((await call(`${h.base}/org`, { headers: { authorization: CI } })).json?.actor, {
    id: 'ci',
    kind: 'operator',
  });
});

t.test('a write to an unserved path without a token is 401, with a token 404', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.gw.close());
  t.equal((await call(`${h.base}/nowhere`, { method: 'POST' })).status, 401);
  t.equal((await call(`${h.base}/nowhere`, { method: 'POST', headers: { authorization: OPS } })).status, 404);
});

t.test('a present but wrong token is refused even where reads are open', async (t) => {
  const h = await startHarness({ routes: [echo('GET', '/org')] });
  t.teardown(() => h.gw.close());
  for (const authorization of ['Bearer nope', 'Bearer ', 'Basic b3BzOnB3', `Bearer ${'x'.repeat(5000)}`]) {
    const r = await call(`${h.base}/org`, { headers: { authorization } });
    t.equal(r.status, 401, authorization.slice(0, 12));
    t.equal(r.json?.error, 'invalid_token');
    t.equal(r.headers.get('www-authenticate'), 'Bearer realm="svc", error="invalid_token"');
  }
});

t.test('with anonymous reads off, reads need a token; /ws/stream alone takes ?token=', async (t) => {
  const h = await startHarness({
    auth: { ...openAuth, allowAnonymousRead: false },
    routes: [echo('GET', '/org'), echo('GET', '/ws/stream')],
  });
  t.teardown(() => h.gw.close());
  const token = encodeURIComponent(openAuth.tokens[0]!.token);
  t.equal((await call(`${h.base}/org`)).status, 401);
  t.equal((await call(`${h.base}/org`, { headers: { authorization: OPS } })).status, 200);
  t.equal(
    (await call(`${h.base}/org?token=${token}`)).status,
    401,
    'a query token authenticates nobody here',
  );
  t.equal((await call(`${h.base}/ws/stream`)).status, 401);
  const ws = await call(`${h.base}/ws/stream?token=${token}`);
  t.equal(ws.status, 200);
  t.same(ws.json?.actor, { id: 'ops', kind: 'operator' });
  t.equal((await call(`${h.base}/ws/stream?token=wrong`)).status, 401);
  // A second `token` is a second credential: refused as a second Authorization header is, not ignored.
  const twice = await call(`${h.base}/ws/stream?token=${token}&token=wrong`);
  t.equal(twice.status, 401);
  t.equal(twice.headers.get('www-authenticate'), 'Bearer realm="svc", error="invalid_request"');
});

t.test('probes, webhooks, telemetry, tool bridge and the dashboard are never guarded', async (t) => {
  const dash = { kind: 'dashboard' as const };
  const h = await startHarness({
    auth: { ...openAuth, allowAnonymousRead: false },
    routes: [
      echo('POST', '/webhooks/relay'),
      echo('POST', '/otlp/:token/v1/:signal'),
      echo('POST', '/mcp/:token'),
      echo('GET', '/dashboard', dash),
      echo('GET', '/static/*', dash),
      echo('GET', '/favicon.ico', dash),
      {
        method: 'GET',
        pattern: '/',
        kind: 'dashboard',
        handler: () => ({ status: 302, headers: { location: '/dashboard' } }),
      },
    ],
  });
  t.teardown(() => h.gw.close());
  const relayJwt = { authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.sig' };
  const cases: Array<[string, string, RequestInit]> = [
    ['GET', '/health', {}],
    ['GET', '/ready', {}],
    ['POST', '/webhooks/relay', { headers: relayJwt, body: '{}' }],
    ['POST', '/otlp/run-token/v1/traces', { body: 'x' }],
    ['POST', '/mcp/run-token', { body: '{}' }],
    ['GET', '/dashboard', {}],
    ['GET', '/static/app.js', {}],
    ['GET', '/favicon.ico', {}],
  ];
  for (const [method, path, init] of cases) {
    t.equal((await call(`${h.base}${path}`, { method, ...init })).status, 200, `${method} ${path}`);
  }
  t.equal((await call(`${h.base}/`, { redirect: 'manual' })).status, 302, 'GET / redirects');
  t.equal((await call(`${h.base}/static/missing`, { method: 'GET' })).status, 200);
});

t.test('without configured tokens, guarded routes and writes are 401 and reads work', async (t) => {
  const h = await startHarness({
    auth: { disabled: false, allowAnonymousRead: true, tokens: [] },
    routes: [echo('GET', '/org'), echo('POST', '/work/items'), echo('GET', '/config')],
  });
  t.teardown(() => h.gw.close());
  t.equal((await call(`${h.base}/org`)).status, 200);
  t.equal((await call(`${h.base}/config`)).status, 401);
  t.equal(
    (await call(`${h.base}/work/items`, { method: 'POST', headers: { authorization: OPS } })).status,
    401,
  );
});

t.test('an empty token value never authenticates', async (t) => {
  const h = await startHarness({
    auth: { disabled: false, allowAnonymousRead: true, tokens: [{ id: 'blank', token: '' }] },
    routes: [echo('GET', '/config')],
  });
  t.teardown(() => h.gw.close());
  t.equal((await call(`${h.base}/config`, { headers: { authorization: 'Bearer ' } })).status, 401);
  t.equal((await call(`${h.base}/config`, { headers: { authorization: 'Bearer' } })).status, 401);
  t.ok(h.logs.some((l) => l.event === 'auth_empty_token' && l.level === 40));
});

t.test('a configured token with surrounding whitespace (an env file newline) authenticates', async (t) => {
  const h = await startHarness({
    auth: {
      disabled: false,
      allowAnonymousRead: true,
      tokens: [{ id: 'ops', token: ' tok-0123456789abcdef\n' }],
    },
    routes: [echo('GET', '/config')],
  });
  t.teardown(() => h.gw.close());
  const res = await call(`${h.base}/config`, { headers: { authorization: 'Bearer tok-0123456789abcdef' } });
  t.equal(res.status, 200);
  t.equal((await call(`${h.base}/config`, { headers: { authorization: 'Bearer tok-0123' } })).status, 401);
  t.equal((await call(`${h.base}/config`, { headers: { authorization: 'Bearer  ' } })).status, 401);
});

t.test('a disabled guard lets everything through as anonymous and warns at start', async (t) => {
  const h = await startHarness({
    auth: { disabled: true, allowAnonymousRead: false, tokens: [] },
    routes: [echo('GET', '/config'), echo('POST', '/work/items'), echo('POST', '/webhooks/x')],
  });
  t.teardown(() => h.gw.close());
  const anonymous = { id: 'anonymous', kind: 'anonymous' };
  t.same((await call(`${h.base}/config`)).json?.actor, anonymous);
  t.same(
    (await call(`${h.base}/work/items`, { method: 'POST', headers: { authorization: 'Bearer x' } })).json
      ?.actor,
    anonymous,
  );
  t.same((await call(`${h.base}/webhooks/x`, { method: 'POST' })).json?.actor, anonymous);
  t.ok(
    h.logs.some((l) => l.event === 'auth_disabled' && l.level === 40),
    'WARNING at start',
  );
});

function managedPut(auth: AuthSettings): RouteDef {
  return {
    method: 'PUT',
    pattern: '/config',
    handler: (req) => {
      assertCompanyWriter(auth, req.actor);
      return { status: 201, body: { stored: true } };
    },
  };
}

t.test('company_writers: a token outside the list gets 403 config_managed with managed_by', async (t) => {
  const auth: AuthSettings = { ...openAuth, companyWriters: ['ops'] };
  const h = await startHarness({ auth, routes: [managedPut(auth)] });
  t.teardown(() => h.gw.close());
  const refused = await call(`${h.base}/config`, {
    method: 'PUT',
    headers: { authorization: CI },
    body: '{}',
  });
  t.equal(refused.status, 403);
  t.equal(refused.json?.error, 'config_managed');
  t.same(refused.json?.managed_by, ['ops']);
  t.type(refused.json?.detail, 'string');
  t.type(refused.json?.hint, 'string');
  const ok = await call(`${h.base}/config`, { method: 'PUT', headers: { authorization: OPS }, body: '{}' });
  t.equal(ok.status, 201);
});

t.test(
  'company_writers unset: every accepted token may write; a disabled guard is no writer when set',
  async (t) => {
    t.doesNotThrow(() => assertCompanyWriter(openAuth, { id: 'ci', kind: 'operator' }));
    t.throws(
      () =>
        assertCompanyWriter({ ...openAuth, companyWriters: ['ops'] }, { id: 'anonymous', kind: 'anonymous' }),
      { name: 'ApiError', code: 'config_managed' },
    );
  },
);

t.test('a request carrying Authorization more than once is refused 401, whichever comes first', async (t) => {
  const { openConnection } = await import('../harness/raw-http.js');
  const h = await startHarness({ routes: [echo('GET', '/secrets'), echo('GET', '/org')] });
  t.teardown(() => h.gw.close());
  const port = Number(new URL(h.base).port);
  const twice = async (path: string, first: string, second: string) => {
    const conn = await openConnection(port);
    t.teardown(() => conn.close());
    conn.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${first}\r\nAuthorization: ${second}\r\n\r\n`,
    );
    return conn.response();
  };
  for (const path of ['/secrets', '/org']) {
    for (const [first, second] of [
      [OPS, 'Bearer wrong'],
      [OPS, OPS],
      ['Bearer wrong', OPS],
    ]) {
      const r = await twice(path, first!, second!);
      t.equal(r.status, 401, `${path}: ${first === OPS ? 'token' : 'wrong'} then another`);
      t.match(JSON.parse(r.body), { error: 'invalid_token' });
      t.equal(r.headers['www-authenticate'], 'Bearer realm="svc", error="invalid_request"');
    }
  }
  t.equal(
    (await call(`${h.base}/secrets`, { headers: { authorization: OPS } })).status,
    200,
    'one is accepted',
  );
  const line = h.logs.find((l) => l.event === 'auth_refused' && l.reason === 'repeated');
  t.match(line, { level: 40, route: '/secrets', operator: null });
  t.notOk(h.rawLogs().includes(openAuth.tokens[0]!.token), 'never the candidate');
});

t.test(
  'a webhook receiver 401 has no Bearer challenge unless the route takes a Bearer credential',
  async (t) => {
    const refuse = (): never => {
      throw new ApiError('invalid_token', { detail: 'bad signature' });
    };
    const h = await startHarness({
      routes: [
        echo('POST', '/webhooks/signed', { handler: refuse }),
        echo('POST', '/webhooks/bearer', { handler: refuse, bearerChallenge: true }),
        echo('POST', '/own-refusal', { access: 'open', handler: refuse }),
      ],
    });
    t.teardown(() => h.gw.close());
    const signed = await call(`${h.base}/webhooks/signed`, { method: 'POST', body: '{}' });
    t.equal(signed.status, 401);
    t.equal(signed.headers.get('www-authenticate'), null, 'an HMAC sender is no HTTP authentication client');
    const bearer = await call(`${h.base}/webhooks/bearer`, { method: 'POST', body: '{}' });
    t.equal(bearer.headers.get('www-authenticate'), 'Bearer realm="svc"');
    const own = await call(`${h.base}/own-refusal`, {
      method: 'POST',
      body: '{}',
      headers: { authorization: 'Bearer something' },
    });
    t.equal(own.status, 401);
    t.equal(
      own.headers.get('www-authenticate'),
      'Bearer realm="svc", error="invalid_token"',
      "a route's own refusal of a credential sent",
    );
  },
);
