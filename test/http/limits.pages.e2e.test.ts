/**
 * The spec's Limits rows for the work tracker's pages, `/events` and the revision diff, held by a built
 * `svc serve` filled past each limit: a work list answers its default page unless asked, a page of exactly
 * its max, and one past the max is 400 `bad_params` naming `limit` (these limits are not clamped, unlike
 * `config_audit` and `since_days`); `/events` answers 400 rows for any larger `limit`; a revision diff
 * lists 500 changes and reports them all in `changes_total`. The in-process route tests hold the same
 * bounds on fewer rows; this holds the served node to the table.
 */
import t from 'tap';
import { call, type Answer, type Json } from '../harness/api.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

/** Projects past the projects page: ENG and 200 more. */
const EXTRA_PROJECTS = 200;
const FILES = 201;
const COMMENTS = 51;
/**
 * Items assigned to bob by ada: each a row of bob's inbox; with ENG-1 and its comments, 252 activity records;
 * each stores two events (created, assigned), 401 events with ENG-1's.
 */
const ASSIGNED = 200;

const pad = (i: number): string => String(i).padStart(3, '0');

/** The company; its 501 skill variables `changed` of which (the first ones) read `b`, the rest `a`. */
const company = (changed = 0) => ({
  name: 'Acme',
  timezone: 'UTC',
  skill_variables: Object.fromEntries(
    Array.from({ length: 501 }, (_, i) => [`v${i}`, i < changed ? 'b' : 'a']),
  ),
  units: [
    {
      name: 'Engineering',
      type: 'team',
      integrations: { work: { project: 'ENG' } },
      roles: [
        { name: 'Ada', handle: 'ada', kind: 'human', contact: { operator_id: 'ops' } },
        { name: 'Bob', handle: 'bob', kind: 'human', contact: { chat_user_id: 'U2' } },
      ],
    },
    ...Array.from({ length: EXTRA_PROJECTS }, (_, i) => ({
      name: `Team ${pad(i)}`,
      type: 'team',
      integrations: { work: { project: `P${pad(i)}` } },
    })),
  ],
});

async function ok(answer: Promise<Answer>, what: string): Promise<Json> {
  const { status, body } = await answer;
  if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  return body;
}

async function putFile(url: string, path: string): Promise<void> {
  const res = await fetch(`${url}/work/files/ENG/${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/markdown' },
    body: 'x',
  });
  if (res.status !== 201) throw new Error(`PUT ${path}: ${res.status} ${await res.text()}`);
}

const rowsOf = (body: Json, field: string): Json[] => (body[field] ?? []) as Json[];

t.test('the work pages and the revision diff hold the Limits table on a served node', async (t) => {
  const node = await startNode(t, 'tracker: {backend: native}');
  const first = await ok(call(node.url, 'PUT', '/config', company()), 'the company');
  await until(
    () => call(node.url, 'GET', '/work/projects?archived=true&limit=1'),
    (r) => r.body['total'] === EXTRA_PROJECTS + 1,
  );
  await ok(call(node.url, 'POST', '/work', { project: 'ENG', title: 'Commented' }), 'ENG-1');
  for (let i = 0; i < COMMENTS; i += 1)
    await ok(call(node.url, 'POST', '/work/ENG-1/comments', { body: `c${i}` }), `comment ${i}`);
  for (let i = 0; i < ASSIGNED; i += 1)
    await ok(
      call(node.url, 'POST', '/work', { project: 'ENG', title: `For bob ${i}`, assignees: ['bob'] }),
      `item ${i}`,
    );
  for (let i = 0; i < FILES; i += 1) await putFile(node.url, `f${pad(i)}.md`);

  // [path, the field holding its rows, rows expected]: a count is answered 200, null is 400 bad_params.
  const rows: Array<[string, string, number | null]> = [
    ['/work/projects', 'projects', 200],
    ['/work/projects?limit=200', 'projects', 200],
    ['/work/projects?limit=201', 'projects', null],
    ['/work/projects?limit=0', 'projects', null],
    [`/work/files?project=ENG`, 'files', 200],
    [`/work/files?project=ENG&limit=1000`, 'files', FILES],
    [`/work/files?project=ENG&limit=1001`, 'files', null],
    ['/work/comments?item=ENG-1', 'comments', 20],
    ['/work/comments?item=ENG-1&limit=50', 'comments', 50],
    ['/work/comments?item=ENG-1&limit=51', 'comments', null],
    ['/work/turns?id=ENG-1&limit=50', 'turns', 0],
    ['/work/turns?id=ENG-1&limit=51', 'turns', null],
    ['/work/inbox?handle=bob', 'items', 50],
    ['/work/inbox?handle=bob&limit=50', 'items', 50],
    ['/work/inbox?handle=bob&limit=51', 'items', null],
    ['/work/activity', 'records', 200],
    ['/work/activity?limit=200', 'records', 200],
    ['/work/activity?limit=201', 'records', null],
  ];
  for (const [path, field, expected] of rows) {
    const answer = await call(node.url, 'GET', path);
    if (expected === null) {
      t.equal(answer.status, 400, path);
      t.match(answer.body, { error: 'bad_params', detail: /`limit` must be an integer from 1 to/ }, path);
    } else {
      t.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body).slice(0, 200)}`);
      t.equal(rowsOf(answer.body, field).length, expected, `${path}: ${expected} rows`);
    }
  }
  const projects = (await call(node.url, 'GET', '/work/projects')).body;
  t.match(projects, { total: EXTRA_PROJECTS + 1, complete: false }, 'the page says more projects exist');
  t.not((await call(node.url, 'GET', '/work/files?project=ENG')).body['next'], null, 'a next file page');
  t.not((await call(node.url, 'GET', '/work/activity')).body['next'], null, 'a next activity page');

  // `q` on /work/activity needs a task, or a project with a since inside 90 days.
  const start = rowsOf((await call(node.url, 'GET', '/work/activity?limit=1')).body, 'records')[0]?.[
    'position'
  ];
  for (const [query, status] of [
    ['q=c1', 400],
    ['container=ENG&q=c1', 400],
    ['task=ENG-1&q=c1', 200],
    [`container=ENG&since=${String(start)}&q=c1`, 200],
  ] as const) {
    const answer = await call(node.url, 'GET', `/work/activity?${query}`);
    t.equal(answer.status, status, `activity ${query}`);
    if (status === 400) t.match(answer.body, { error: 'bad_params', detail: /q needs task=/ });
  }

  // Each create stores TaskCreated and TaskAssigned: 401 events and more; a page holds 400 however many asked.
  await until(
    () => call(node.url, 'GET', '/events?limit=400&category=task'),
    (r) => rowsOf(r.body, 'rows').length === 400,
  );
  for (const limit of ['400', '401', '100000']) {
    const page = await call(node.url, 'GET', `/events?limit=${limit}`);
    t.equal(page.status, 200, `/events?limit=${limit}`);
    t.match(page.body, { exhausted: false }, `/events?limit=${limit}: more remain`);
    t.equal(rowsOf(page.body, 'rows').length, 400, `/events?limit=${limit}: 400 rows`);
  }

  // A diff of exactly 500 changes lists them all; of 501 lists 500 and counts 501.
  const at = await ok(call(node.url, 'PUT', '/config', company(500)), '500 changed');
  const past = await ok(call(node.url, 'PUT', '/config', company(501)), '501 changed');
  const diff = async (to: Json, from: Json): Promise<Json> =>
    ok(
      call(
        node.url,
        'GET',
        `/config/revisions/${String(to['revision_id'])}/diff?against=${String(from['revision_id'])}`,
      ),
      'diff',
    );
  const full = await diff(at, first);
  t.same([rowsOf(full, 'changes').length, full['changes_total']], [500, 500], '500 changes: all listed');
  const cut = await diff(past, first);
  t.same([rowsOf(cut, 'changes').length, cut['changes_total']], [500, 501], '501 changes: 500 listed');
});
