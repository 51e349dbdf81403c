import t from 'tap';
import type { Test } from 'tap';
import { ApiError, cspHash } from '../../http/index.js';
import { call, echo, OPS, startHarness, type Answer } from './fixtures/gateway-harness.js';

const NONE = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const DASHBOARD =
  "default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; connect-src 'self'; " +
  "img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self' https:";

function securityHeaders(t: Test, r: Answer, csp: string, label: string): void {
  t.equal(r.headers.get('content-security-policy'), csp, `${label}: CSP`);
  t.equal(r.headers.get('x-frame-options'), 'DENY', `${label}: X-Frame-Options`);
  t.equal(r.headers.get('x-content-type-options'), 'nosniff', `${label}: X-Content-Type-Options`);
  t.equal(r.headers.get('referrer-policy'), 'no-referrer', `${label}: Referrer-Policy`);
}

const style = 'body{font-family:sans-serif}';
const script = 'document.title="done"';

t.test('every answer carries the security headers: 200, 404, 401, 405, 503, probes', async (t) => {
  const h = await startHarness({
    routes: [
      echo('GET', '/org'),
      echo('POST', '/work/things'),
      {
        method: 'GET',
        pattern: '/secrets/:name',
        handler: () => {
          throw new ApiError('no_keyring');
        },
      },
    ],
  });
  t.teardown(() => h.gw.close());
  const cases: Array<[string, string, RequestInit, number]> = [
    ['ok', '/org', {}, 200],
    ['no route', '/missing', {}, 404],
    ['refused', '/work/things', { method: 'POST' }, 401],
    ['wrong method', '/org', { method: 'DELETE', headers: { authorization: OPS } }, 405],
    ['no keyring', '/secrets/X', { headers: { authorization: OPS } }, 503],
    ['health', '/health', {}, 200],
  ];
  for (const [label, path, init, status] of cases) {
    const r = await call(`${h.base}${path}`, init);
    t.equal(r.status, status, label);
    securityHeaders(t, r, NONE, label);
  }
  h.probes.ready = false;
  securityHeaders(t, await call(`${h.base}/ready`), NONE, 'not ready');
});

t.test('dashboard shell, favicon and /static/* get the dashboard policy', async (t) => {
  const page = { kind: 'dashboard' as const };
  const h = await startHarness({
    routes: [
      echo('GET', '/dashboard', page),
      echo('GET', '/favicon.ico', page),
      echo('GET', '/static/*', page),
    ],
  });
  t.teardown(() => h.gw.close());
  for (const path of ['/dashboard', '/favicon.ico', '/static/app.js']) {
    const r = await call(`${h.base}${path}`);
    t.equal(r.status, 200, path);
    securityHeaders(t, r, DASHBOARD, path);
  }
});

t.test('a landing page gets default none plus the hashes of its own inline style and script', async (t) => {
  const h = await startHarness({
    routes: [
      {
        method: 'GET',
        pattern: '/webhooks/chat-oauth',
        kind: 'landing',
        cspHashes: { style: [cspHash(style)], script: [cspHash(script)] },
        handler: () => ({
          status: 200,
          headers: { 'content-type': 'text/html; charset=utf-8' },
          body: `<style>${style}</style><script>${script}</script>`,
        }),
      },
    ],
  });
  t.teardown(() => h.gw.close());
  const r = await call(`${h.base}/webhooks/chat-oauth`);
  t.equal(r.status, 200);
  t.equal(r.headers.get('content-type'), 'text/html; charset=utf-8');
  const expected =
    `default-src 'none'; style-src '${cspHash(style)}'; script-src '${cspHash(script)}'; ` +
    "base-uri 'none'; frame-ancestors 'none'; form-action 'none'";
  securityHeaders(t, r, expected, 'landing');
  t.match(cspHash(style), /^sha256-[A-Za-z0-9+/]+=*$/);
});

t.test('a handler cannot replace the security headers', async (t) => {
  const h = await startHarness({
    routes: [
      {
        method: 'GET',
        pattern: '/org',
        handler: () => ({
          status: 200,
          headers: {
            'Content-Security-Policy': 'default-src *',
            'X-Frame-Options': 'ALLOW',
            'X-Extra': 'yes',
          },
          body: {},
        }),
      },
    ],
  });
  t.teardown(() => h.gw.close());
  const r = await call(`${h.base}/org`);
  securityHeaders(t, r, NONE, 'handler tried');
  t.equal(r.headers.get('x-extra'), 'yes', 'other headers pass');
});

t.test(
  'every answer under /config (and its questions) says Cache-Control: no-store, errors included',
  async (t) => {
    const h = await startHarness({
      routes: [
        {
          method: 'GET',
          pattern: '/config',
          handler: () => ({ status: 200, headers: { 'cache-control': 'max-age=60' }, body: {} }),
        },
        echo('GET', '/query/:what'),
        echo('GET', '/org'),
      ],
    });
    t.teardown(() => h.gw.close());
    const cases: Array<[string, RequestInit, number]> = [
      ['/config', { headers: { authorization: OPS } }, 200],
      ['/config', {}, 401],
      ['/config/nothing/here', { headers: { authorization: OPS } }, 404],
      ['/config', { method: 'DELETE', headers: { authorization: OPS } }, 405],
      ['/query/config', {}, 200],
      ['/query/config_diff', {}, 200],
    ];
    for (const [path, init, status] of cases) {
      const r = await call(`${h.base}${path}`, init);
      t.equal(r.status, status, `${path} ${status}`);
      t.equal(r.headers.get('cache-control'), 'no-store', `${path} ${status}: no-store`);
    }
    t.equal((await call(`${h.base}/org`)).headers.get('cache-control'), null, 'not outside /config');
    t.equal((await call(`${h.base}/query/events`)).headers.get('cache-control'), null, 'nor other questions');
  },
);
