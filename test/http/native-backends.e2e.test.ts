import t from 'tap';
import { nativeBackendRoutes } from '../../http/index.js';
import { operatorSurface } from '../../scripts/operator-wiring.js';
import { call, OPS, openAuth, startHarness } from './fixtures/gateway-harness.js';

t.test('/work* and /pages* answer 404 unknown_query when the backend is not native', async (t) => {
  const h = await startHarness({ routes: nativeBackendRoutes({ tracker: undefined, knowledge: undefined }) });
  t.teardown(() => h.gw.close());
  for (const path of [
    '/work',
    '/work/ENG-1',
    '/work/files/eng/docs/a.md',
    '/pages',
    '/pages/p-1',
    '/containers',
  ]) {
    const r = await call(`${h.base}${path}`);
    t.equal(r.status, 404, path);
    t.equal(r.json?.error, 'unknown_query', path);
    t.match(r.json?.detail, path.startsWith('/work') ? /tracker\.backend is native/ : /knowledge\.backend/);
  }
  const put = await call(`${h.base}/work/files/eng/a.md`, {
    method: 'PUT',
    headers: { authorization: OPS, 'x-summary': 'x' },
    body: 'text',
  });
  t.equal(put.status, 404, 'a write under /work* too');
  t.equal(put.json?.error, 'unknown_query');
  // The retention routes are guarded always: with a token they meet the same refusal.
  for (const [method, path] of [
    ['GET', '/work/retention'],
    ['GET', '/work/retention/reanchor'],
    ['POST', '/work/retention/evict/node-1'],
    ['POST', '/work/retention/capacity'],
  ] as const) {
    const r = await call(`${h.base}${path}`, {
      method,
      headers: { authorization: OPS },
      body: method === 'POST' ? '{}' : null,
    });
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.json?.error, 'unknown_query', `${method} ${path}`);
  }
});

t.test('a native tracker leaves /work to the work routes; /pages still refuses', async (t) => {
  const h = await startHarness({ routes: nativeBackendRoutes({ tracker: 'native', knowledge: undefined }) });
  t.teardown(() => h.gw.close());
  const work = await call(`${h.base}/work/my-work`);
  t.equal(work.status, 404);
  t.equal(work.json?.error, 'no_route', 'not refused by this family: the tracker serves it');
  const pages = await call(`${h.base}/pages`);
  t.equal(pages.json?.error, 'unknown_query');
});

t.test('without a native backend /operator/* is absent (no_route)', async (t) => {
  const surface = operatorSurface({ tools: [], auth: openAuth, chart: () => null, resolve: () => undefined });
  t.same(surface.acts(), []);
  const h = await startHarness({ routes: [...surface.routes] });
  t.teardown(() => h.gw.close());
  for (const path of ['/operator/mcp', '/operator/act/pages_write']) {
    const r = await call(`${h.base}${path}`, { method: 'POST', headers: { authorization: OPS }, body: '{}' });
    t.equal(r.status, 404, path);
    t.equal(r.json?.error, 'no_route', path);
  }
});
