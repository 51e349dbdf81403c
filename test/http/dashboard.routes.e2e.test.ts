/**
 * The dashboard shell and its assets through a real listener (spec "Conventions", "Authentication" 3,
 * the `/dashboard` read route): `/` redirects, the shell and `/static/*` carry the dashboard policy
 * exactly, hashed assets are cached for a year, nothing here is guarded even when anonymous reads are off.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { dashboardRoutes, loadDashboardAssets } from '../../http/index.js';
import { call, OPS, openAuth, startHarness } from './fixtures/gateway-harness.js';

// Written out as the spec words it, not imported: a drift in headers.ts must fail here.
const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; connect-src 'self'; " +
  "img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self' https:";

function buildDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dashboard-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'static'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><script type="module" src="/static/main-ABCD1234.js"></script>',
  );
  writeFileSync(join(dir, 'static', 'main-ABCD1234.js'), 'console.log("hi")');
  writeFileSync(join(dir, 'static', 'main-ABCD1234.css'), 'body{margin:0}');
  writeFileSync(join(dir, 'static', 'notes.txt'), 'unhashed');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

t.test('the shell, its assets and the favicon answer under the dashboard policy, unguarded', async (t) => {
  const assets = loadDashboardAssets(buildDir(t));
  const h = await startHarness({
    auth: { ...openAuth, allowAnonymousRead: false },
    routes: dashboardRoutes(assets),
  });
  t.teardown(() => h.gw.close());

  const root = await fetch(`${h.base}/`, { redirect: 'manual' });
  t.equal(root.status, 302, '/ redirects');
  t.equal(root.headers.get('location'), '/dashboard');
  t.equal(root.headers.get('content-security-policy'), DASHBOARD_CSP);

  const shell = await call(`${h.base}/dashboard`);
  t.equal(shell.status, 200, 'the shell needs no token even with anonymous reads off');
  t.match(shell.headers.get('content-type'), /^text\/html/);
  t.equal(shell.headers.get('content-security-policy'), DASHBOARD_CSP);
  t.equal(shell.headers.get('x-frame-options'), 'DENY');
  t.equal(shell.headers.get('x-content-type-options'), 'nosniff');
  t.equal(shell.headers.get('referrer-policy'), 'no-referrer');
  t.equal(
    shell.headers.get('cache-control'),
    'no-cache',
    'the shell is revalidated: a new build shows at once',
  );
  t.match(shell.text, /main-ABCD1234\.js/);

  const script = await call(`${h.base}/static/main-ABCD1234.js`);
  t.equal(script.status, 200);
  t.match(script.headers.get('content-type'), /^text\/javascript/);
  t.equal(script.headers.get('cache-control'), 'public, max-age=31536000, immutable', 'hashed: a year');
  t.equal(script.headers.get('content-security-policy'), DASHBOARD_CSP);
  t.equal(script.text, 'console.log("hi")');

  const style = await call(`${h.base}/static/main-ABCD1234.css`);
  t.match(style.headers.get('content-type'), /^text\/css/);

  const plain = await call(`${h.base}/static/notes.txt`);
  t.equal(plain.headers.get('cache-control'), 'no-cache', 'a name without a hash is revalidated');

  const icon = await call(`${h.base}/favicon.ico`);
  t.equal(icon.status, 200);
  t.equal(icon.headers.get('content-type'), 'image/svg+xml');
  t.equal(icon.headers.get('content-security-policy'), DASHBOARD_CSP);

  const missing = await call(`${h.base}/static/main-FFFF0000.js`);
  t.equal(missing.status, 404);
  t.equal(missing.json?.['error'], 'not_found', 'an unknown asset is a coded 404');
  t.equal(missing.headers.get('content-security-policy'), DASHBOARD_CSP);

  const escape = await call(`${h.base}/static/..%2Findex.html`);
  t.equal(escape.status, 404, 'only the files read at start are served, whatever the path says');

  const write = await call(`${h.base}/dashboard`, { method: 'POST', headers: { authorization: OPS } });
  t.equal(write.status, 405, 'the shell takes no writes');
  t.equal(write.headers.get('allow'), 'GET');

  // Served path under another method: 405 with Allow, whoever asks; the guard keeps nothing there.
  for (const path of ['/dashboard', '/static/main-ABCD1234.js', '/favicon.ico']) {
    for (const authorization of [undefined, 'Bearer wrong']) {
      const other = await call(`${h.base}${path}`, {
        method: 'POST',
        ...(authorization ? { headers: { authorization } } : {}),
      });
      const who = authorization ? 'a wrong token' : 'no token';
      t.equal(other.status, 405, `POST ${path} with ${who}: 405, not 401`);
      t.equal(other.json?.['error'], 'method_not_allowed', `POST ${path} with ${who}: coded`);
      t.equal(other.headers.get('allow'), 'GET', `POST ${path} with ${who}: Allow`);
    }
  }

  const api = await call(`${h.base}/dashboard`, { headers: { authorization: 'Bearer wrong' } });
  t.equal(api.status, 200, 'a wrong token does not matter where nothing is guarded');
});

t.test('a node that was never built serves a shell that says how to build it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dashboard-empty-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const assets = loadDashboardAssets(dir);
  t.equal(assets.built, false);
  const h = await startHarness({ routes: dashboardRoutes(assets) });
  t.teardown(() => h.gw.close());
  const shell = await call(`${h.base}/dashboard`);
  t.equal(shell.status, 200);
  t.match(shell.text, /npm run build/);
  t.notMatch(shell.text, /<script|<style|style=/, 'nothing inline the policy would refuse');
  const icon = await call(`${h.base}/favicon.ico`);
  t.equal(icon.status, 404);
});
