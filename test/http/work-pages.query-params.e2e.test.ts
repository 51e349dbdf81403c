/**
 * Spec Errors: 400 `bad_params` for an unknown or bad parameter on `/work/projects/{key}` and similar. Each
 * `/work*`, `/pages*` and `/containers` route declares the query parameters it reads; any other is refused
 * naming it (a near miss with the name meant) rather than passed over, so `GET /work?asignee=ada` is not
 * every item. Asked as a `/query` question (as the dashboard asks them) the same holds, and the requests
 * the dashboard, `svc` and the docs make are still answered.
 */
import t from 'tap';
import { nativeBackendQuestions, queryRoutes, type RouteDef } from '../../http/index.js';
import { OPS, call, startHarness } from './fixtures/gateway-harness.js';
import { startPagesNode } from './fixtures/pages-node.js';
import { startWorkHarness } from './fixtures/work-harness.js';

const json = { authorization: OPS, 'content-type': 'application/json' };

/** A path the route serves, its parameters filled with something that exists (or could). */
function pathOf(route: RouteDef, rest: string): string {
  const filled = route.pattern
    .replace(':id', route.pattern.startsWith('/work/views') ? 'v1' : 'ENG-1')
    .replace(':key', 'ENG')
    .replace(':handle', 'ada')
    .replace(':project', 'ENG')
    .replace(':node', 'node-0')
    .replace(':view', 'ENG:board');
  return filled.endsWith('/*') ? `${filled.slice(0, -1)}${rest}` : filled;
}

/** Asks `route` at `path` with `query`: a write with a body no write takes, so nothing but the query acts. */
const ask = (base: string, route: RouteDef, path: string, query: string) =>
  call(`${base}${path}?${query}`, {
    method: route.method,
    headers: json,
    ...(route.method === 'GET' ? {} : { body: route.pattern.startsWith('/work/files') ? 'x' : '[]' }),
  });

const unread = /does not read the parameter/;

t.test('GET /work?asignee= is 400 bad_params naming the parameter and the one meant', async (t) => {
  const w = await startWorkHarness(t);
  await call(`${w.base}/work`, { method: 'POST', headers: json, body: '{"project":"ENG","title":"One"}' });
  const r = await call(`${w.base}/work?asignee=ada`);
  t.equal(r.status, 400);
  t.equal(r.json?.['error'], 'bad_params');
  t.match(r.json?.['detail'], /GET \/work does not read the parameter asignee; did you mean assignee\?/);
  t.match(r.json?.['hint'], /\bassignee\b.*\bcursor\b/, 'the hint lists what the route reads');
  const far = await call(`${w.base}/work/projects/ENG?nonesuch=1`);
  t.equal(far.json?.['error'], 'bad_params');
  t.notMatch(far.json?.['detail'], /did you mean/, 'no suggestion for a name nothing is near');
  t.match(far.json?.['hint'], /for_type/);
  const none = await call(`${w.base}/work/ENG-1?expand=1`);
  t.equal(none.status, 400, 'a route reading no parameter refuses any');
  t.match(none.json?.['hint'], /reads no query parameter/);
  const empty = await call(`${w.base}/work?=x`);
  t.equal(empty.json?.['error'], 'bad_params', 'a parameter without a name too');
  t.equal((await call(`${w.base}/work?assignee=ada`)).status, 200, 'spelled right it is read');
});

t.test('every /work route refuses a parameter it does not read and takes each one it declares', async (t) => {
  const w = await startWorkHarness(t);
  await call(`${w.base}/work`, { method: 'POST', headers: json, body: '{"project":"ENG","title":"One"}' });
  t.ok(w.routes.length >= 40, `${w.routes.length} routes`);
  for (const route of w.routes) {
    const what = `${route.method} ${route.pattern}`;
    t.ok(Array.isArray(route.query), `${what} declares its parameters`);
    const path = pathOf(route, 'notes.md');
    const refused = await ask(w.base, route, path, 'nonesuch=1');
    t.equal(refused.status, 400, `${what} ?nonesuch: 400`);
    t.equal(refused.json?.['error'], 'bad_params', `${what} ?nonesuch: bad_params`);
    t.match(refused.json?.['detail'], /does not read the parameter nonesuch/, `${what} names it`);
    for (const name of route.query ?? []) {
      const r = await ask(w.base, route, path, `${name}=x`);
      t.notMatch(r.json?.['detail'] ?? '', unread, `${what} reads ${name} (${r.status})`);
      t.ok(r.status < 500, `${what} ?${name}: ${r.status}`);
    }
  }
});

t.test('every /pages route and /containers refuses a parameter it does not read', async (t) => {
  const n = await startPagesNode(t);
  await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Page' } });
  const routes = n.knowledge.routes;
  t.ok(routes.length >= 7, `${routes.length} routes`);
  for (const route of routes) {
    const what = `${route.method} ${route.pattern}`;
    t.ok(Array.isArray(route.query), `${what} declares its parameters`);
    const path = pathOf(route, route.method === 'POST' ? 'ENG/Page/comments' : 'ENG/Page');
    const refused = await ask(n.base, route, path, 'contianer=ENG');
    t.equal(refused.status, 400, `${what} ?contianer: 400`);
    t.equal(refused.json?.['error'], 'bad_params', `${what}: bad_params`);
    t.match(refused.json?.['detail'], /does not read the parameter contianer/, `${what} names it`);
    for (const name of route.query ?? []) {
      const r = await ask(n.base, route, path, `${name}=x`);
      t.notMatch(r.json?.['detail'] ?? '', unread, `${what} reads ${name} (${r.status})`);
      t.ok(r.status < 500, `${what} ?${name}: ${r.status}`);
    }
  }
  const near = await n.call('GET', '/pages?contianer=ENG');
  t.match(near.json['detail'], /did you mean container\?/);
});

t.test('/work?q= longer than 500 characters is refused as /pages?q= is', async (t) => {
  const w = await startWorkHarness(t);
  const long = await call(`${w.base}/work?q=${'a'.repeat(501)}`);
  t.equal(long.status, 400);
  t.equal(long.json?.['error'], 'bad_params');
  t.match(long.json?.['detail'], /`q` .*at most 500 characters/);
  t.type(long.json?.['hint'], 'string');
  t.equal((await call(`${w.base}/work?q=${'a'.repeat(500)}`)).status, 200, '500 characters are read');
  // Characters are code points, as on /pages: 500 beyond the BMP are 1,000 UTF-16 units.
  t.equal((await call(`${w.base}/work?q=${encodeURIComponent('😀'.repeat(500))}`)).status, 200);
  for (const path of ['/work/projects', '/work/activity'])
    t.equal((await call(`${w.base}${path}?q=${'a'.repeat(501)}`)).json?.['error'], 'bad_params', path);
});

t.test(
  'the questions the dashboard asks are answered; an unknown parameter is refused there too',
  async (t) => {
    const w = await startWorkHarness(t);
    const n = await startPagesNode(t);
    await call(`${w.base}/work`, { method: 'POST', headers: json, body: '{"project":"ENG","title":"One"}' });
    const page = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Page' } });
    const questions = nativeBackendQuestions({
      tracker: 'native',
      knowledge: 'native',
      workRoutes: w.routes,
      knowledgeRoutes: n.knowledge.routes,
    });
    const q = await startHarness({ routes: queryRoutes(questions) });
    t.teardown(() => q.gw.close());
    // As dashboard/src/rooms/board.tsx, work-item.tsx and pages.tsx ask them.
    const asked = [
      'work_projects',
      'work_items?project=ENG&limit=200',
      'work_item?id=ENG-1',
      'containers',
      'pages?container=ENG&limit=100',
      'pages?q=page&limit=100',
      `page?id=${String(page.json['page_id'])}`,
    ];
    for (const question of asked) {
      const r = await call(`${q.base}/query/${question}`);
      t.equal(r.status, 200, `${question}: ${r.text.slice(0, 200)}`);
    }
    const typo = await call(`${q.base}/query/work_items?asignee=ada`);
    t.equal(typo.json?.['error'], 'bad_params');
    t.match(typo.json?.['detail'], /work_items does not read the parameter asignee; did you mean assignee\?/);
    const item = await call(`${q.base}/query/work_item?id=ENG-1&full=1`);
    t.equal(item.json?.['error'], 'bad_params');
    t.match(item.json?.['hint'], /work_item reads id\./, 'the question reads its id');
  },
);

t.test('the requests svc and the docs make are answered', async (t) => {
  const w = await startWorkHarness(t);
  await call(`${w.base}/work`, { method: 'POST', headers: json, body: '{"project":"ENG","title":"One"}' });
  // scripts/work-cli.ts (list with every flag, inbox, mine) and ops/work-tracker.md's examples.
  const gets = [
    '/work?project=ENG&status=todo&assignee=ada&q=one&limit=5',
    '/work/inbox?unread=true&limit=5&handle=ada',
    '/work/my-work?handle=ada',
    '/work?limit=50',
    '/work?project=ENG&group=active&assignee=ada',
    '/work?status=todo,in_review&priority=urgent',
    '/work?project=OPS&q=flaky',
    '/work/inbox?handle=ada',
    '/work/comments?item=ENG-1&limit=5',
    '/work/turns?id=ENG-1&limit=5',
    '/work/files?project=ENG&folder=docs&removed=true&limit=5&after=a',
    '/work/views/saved?counts=true',
    '/work/catalogue?archived=true',
  ];
  for (const path of gets) {
    const r = await call(`${w.base}${path}`, { headers: json });
    t.equal(r.status, 200, `GET ${path}: ${r.text.slice(0, 200)}`);
  }
  const n = await startPagesNode(t);
  for (const path of ['/pages?container=ENG&parent=root&limit=5', '/pages?q=page&container=ENG&limit=5'])
    t.equal((await n.call('GET', path)).status, 200, path);
});
