import t from 'tap';
import { CI, OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness, type WorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const post = (url: string, body: unknown, auth = OPS, method = 'POST') =>
  call(url, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function seed(w: WorkHarness): Promise<void> {
  await post(`${w.base}/work`, { project: 'ENG', title: 'Blocker', assignees: ['coder'] }, CI);
  await post(`${w.base}/work`, {
    project: 'ENG',
    title: 'Urgent for ada',
    priority: 'urgent',
    assignees: ['ada'],
    links: [{ kind: 'blocked_by', item: 'ENG-1' }],
  });
  await post(`${w.base}/work`, { project: 'ENG', title: 'Asked', asked_of: ['ada'], watchers: ['ada'] }, CI);
  await post(
    `${w.base}/work`,
    { project: 'OPS', title: 'List', checklist: [{ id: 'a', text: 'check it', assignee: 'ada' }] },
    CI,
  );
  for (const to of ['in_progress', 'done']) await post(`${w.base}/work/ENG-1/move`, { to }, CI);
  await post(`${w.base}/work/ENG-3/comments`, { body: 'what do you think @ada?' }, CI);
}

t.test('/work/projects: task_counts, census, filters, sort and refusals', async (t) => {
  const w = await startWorkHarness(t);
  await seed(w);
  const all = await call(`${w.base}/work/projects`);
  t.equal(all.status, 200);
  t.same(
    (all.json?.projects as Json[]).map((p) => p.key),
    ['ENG', 'OPS'],
    'archived excluded by default, sorted by key',
  );
  t.same(all.json?.census, { active: 2, archived: 1 });
  t.equal(all.json?.total, 2);
  t.equal(all.json?.complete, true);
  const eng = (all.json?.projects as Json[])[0]!;
  t.same(eng.task_counts, { todo: 2, active: 0, done: 1, closed: 0 });
  t.equal(eng.target_date, '2027-01-31');
  t.equal(eng.unit, 'Engineering');
  t.equal(eng.lead, 'ada');
  t.match(eng.last_change, /^\d{4}-/);
  t.same(
    ((await call(`${w.base}/work/projects?archived=only`)).json?.projects as Json[]).map((p) => p.key),
    ['OLD'],
  );
  t.equal(((await call(`${w.base}/work/projects?archived=true`)).json?.projects as Json[]).length, 3);
  t.same(
    ((await call(`${w.base}/work/projects?sort=-todo`)).json?.projects as Json[]).map((p) => p.key),
    ['ENG', 'OPS'],
  );
  t.same(
    ((await call(`${w.base}/work/projects?sort=name`)).json?.projects as Json[]).map((p) => p.name),
    ['Engineering', 'Operations'],
  );
  t.same(
    ((await call(`${w.base}/work/projects?q=oper`)).json?.projects as Json[]).map((p) => p.key),
    ['OPS'],
  );
  t.same(
    ((await call(`${w.base}/work/projects?unit=Engineering`)).json?.projects as Json[]).map((p) => p.key),
    ['ENG'],
  );
  const one = await call(`${w.base}/work/projects?limit=1`);
  t.equal((one.json?.projects as Json[]).length, 1);
  t.equal(one.json?.complete, false);
  for (const bad of [
    'archived=maybe',
    'sort=size',
    'limit=201',
    'limit=0',
    'limit=0x10',
    'limit=1e2',
    'limit=2.0',
  ]) {
    const refused = await call(`${w.base}/work/projects?${bad}`);
    t.equal(refused.json?.error, 'bad_params', bad);
    // Every list's limit is read by one helper: the same words, naming the parameter.
    if (bad.startsWith('limit='))
      t.match(refused.json?.detail, /^`limit` must be an integer from 1 to 200\.$/, bad);
  }
  t.equal((await call(`${w.base}/work/projects?limit=200`)).status, 200, '200 is the max');
  const full = await call(`${w.base}/work/projects/ENG?for_type=bug`);
  t.equal(full.status, 200);
  t.same(full.json?.members, ['ada', 'bob', 'coder']);
  t.same(full.json?.task_counts, eng.task_counts, "the project's counts are those the list shows");
  t.ok((full.json?.fields as Json[]).some((f) => f.name === 'severity'));
  t.equal((await call(`${w.base}/work/projects/ENG?for_type=epic`)).json?.error, 'bad_params');
  const none = await call(`${w.base}/work/projects/NOPE`);
  t.equal(none.status, 404);
});

t.test('/work/catalogue lists types and fields; archived ones on request', async (t) => {
  const w = await startWorkHarness(t);
  const plain = await call(`${w.base}/work/catalogue`);
  t.notOk((plain.json?.types as Json[]).some((x) => x.name === 'story'));
  t.equal((plain.json?.statuses as Json[]).length, 6);
  const archived = await call(`${w.base}/work/catalogue?archived=true`);
  t.ok((archived.json?.types as Json[]).some((x) => x.name === 'story' && x.archived === true));
  t.equal((await call(`${w.base}/work/catalogue?archived=yes`)).json?.error, 'bad_params');
});

t.test('/work/activity: positions, filters, keys, limit and the q rule', async (t) => {
  const w = await startWorkHarness(t);
  await seed(w);
  const all = await call(`${w.base}/work/activity`);
  const rows = all.json?.records as Json[];
  t.equal(rows.length, 7);
  t.equal(all.json?.exhausted, true);
  t.equal(all.json?.next, null);
  t.match(rows[0]?.position, /^SVC_WORK@1:1$/);
  t.equal((all.json?.keys as Json)[String(rows[0]?.item)], 'ENG-1', 'ids resolve to keys');
  const page = await call(`${w.base}/work/activity?limit=3`);
  t.equal((page.json?.records as Json[]).length, 3);
  const next = await call(`${w.base}/work/activity?limit=3&cursor=${String(page.json?.next)}`);
  t.equal(
    (next.json?.records as Json[])[0]?.position,
    rows[3]?.position,
    'the cursor continues where the page ended',
  );
  const since = await call(`${w.base}/work/activity?since=${String(rows[5]?.position)}`);
  t.same(
    (since.json?.records as Json[]).map((r) => r.position),
    [rows[6]?.position],
  );
  const moves = await call(`${w.base}/work/activity?task=ENG-1&kinds=item.moved`);
  t.same(
    (moves.json?.records as Json[]).map((r) => (r.fields as Json).status),
    [
      { from: 'backlog', to: 'in_progress' },
      { from: 'in_progress', to: 'done' },
    ],
  );
  t.equal(((await call(`${w.base}/work/activity?actor=ada`)).json?.records as Json[]).length, 1);
  t.equal(((await call(`${w.base}/work/activity?container=OPS`)).json?.records as Json[]).length, 1);
  t.ok(((await call(`${w.base}/work/activity?notified=ada`)).json?.records as Json[]).length >= 2);
  t.equal(
    ((await call(`${w.base}/work/activity?from=2999-01-01T00:00:00Z`)).json?.records as Json[]).length,
    0,
  );
  t.equal(((await call(`${w.base}/work/activity?task=ENG-3&q=think`)).json?.records as Json[]).length, 1);
  const recentSince = String(rows[0]?.position);
  t.equal((await call(`${w.base}/work/activity?container=ENG&since=${recentSince}&q=think`)).status, 200);
  for (const bad of [
    'q=think',
    'container=ENG&q=think',
    'since=nonsense',
    'since=SVC_WORK@2:1',
    'limit=201',
    'from=yesterday',
  ])
    t.equal((await call(`${w.base}/work/activity?${bad}`)).json?.error, 'bad_params', bad);
  t.equal((await call(`${w.base}/work/activity?limit=200`)).status, 200);
});

t.test('/work/my-work answers the bound seat seven lists; another handle only to a token', async (t) => {
  const w = await startWorkHarness(t);
  await seed(w);
  const mine = await call(`${w.base}/work/my-work`, { headers: { authorization: OPS } });
  t.equal(mine.status, 200);
  t.equal(mine.json?.handle, 'ada', 'the ops token is bound to ada');
  const keys = (list: string) => (mine.json?.[list] as Json[]).map((i) => i.key ?? i.item);
  t.same(keys('priorities'), ['ENG-2']);
  t.same(keys('assigned'), ['ENG-2']);
  t.same(keys('asked_of_me'), ['ENG-3']);
  t.same(keys('checklist_items'), ['OPS-1']);
  t.same(keys('collaborating'), []);
  t.same(keys('watching_recent'), ['ENG-3']);
  t.same(keys('unblocked_recent'), ['ENG-2'], 'its blocker was just finished');
  const other = await call(`${w.base}/work/my-work?handle=coder`, { headers: { authorization: CI } });
  t.equal(other.json?.handle, 'coder', 'a token may read another seat');
  const anonymous = await call(`${w.base}/work/my-work?handle=coder`);
  t.equal(anonymous.status, 401, 'not without one');
  const unbound = await call(`${w.base}/work/my-work`, { headers: { authorization: CI } });
  t.equal(unbound.json?.error, 'bad_params', 'an unbound token must name a seat');
});

t.test('/work/inbox, /work/people and /work/views', async (t) => {
  const w = await startWorkHarness(t);
  await seed(w);
  const inbox = await call(`${w.base}/work/inbox`, { headers: { authorization: OPS } });
  const reasons = (inbox.json?.items as Json[]).map((r) => r.reason);
  t.ok(reasons.includes('mentioned') && reasons.includes('asked'), JSON.stringify(reasons));
  t.notOk(
    (inbox.json?.items as Json[]).some((r) => r.actor === 'ada'),
    'the person’s own changes are not in it',
  );
  const mentioned = await call(`${w.base}/work/inbox?reasons=mentioned`, { headers: { authorization: OPS } });
  t.same(
    (mentioned.json?.items as Json[]).map((r) => r.reason),
    ['mentioned'],
  );
  const snoozed = await call(`${w.base}/work/inbox?snoozed=only`, { headers: { authorization: OPS } });
  t.same(snoozed.json?.items, []);
  const one = await call(`${w.base}/work/inbox?limit=1`, { headers: { authorization: OPS } });
  t.equal((one.json?.items as Json[]).length, 1);
  const rest = await call(`${w.base}/work/inbox?limit=50&cursor=${String(one.json?.next)}`, {
    headers: { authorization: OPS },
  });
  t.equal((rest.json?.items as Json[]).length, (inbox.json?.items as Json[]).length - 1);
  for (const bad of ['limit=51', 'snoozed=never', 'reasons=bored', 'unread=maybe'])
    t.equal(
      (await call(`${w.base}/work/inbox?${bad}`, { headers: { authorization: OPS } })).json?.error,
      'bad_params',
      bad,
    );
  const person = await call(`${w.base}/work/people/bob`, { headers: { authorization: CI } });
  t.equal(person.json?.held, false, 'an unwritten person answers an empty state');
  t.same(person.json?.pinned_views, []);
  t.equal((await call(`${w.base}/work/people/bob`)).status, 401);
  const views = await call(`${w.base}/work/views?container=ENG`, { headers: { authorization: OPS } });
  t.same(
    (views.json?.views as Json[]).map((v) => v.id),
    ['ENG:board', 'ENG:list', 'ENG:mine'],
  );
  const saved = await call(`${w.base}/work/views/saved?counts=true`, { headers: { authorization: OPS } });
  t.same(saved.json, { viewer: 'ada', views: [], counts: {} });
});

t.test(
  '/work/activity q: a project search needs its read to start inside 90 days, and pages on by cursor',
  async (t) => {
    const day = 24 * 3600 * 1000;
    let clock = Date.parse('2026-03-01T00:00:00Z');
    const w = await startWorkHarness(t, { now: () => new Date(clock) });
    await seed(w);
    const rows = (await call(`${w.base}/work/activity`)).json?.records as Json[];
    const search = (query: string) => call(`${w.base}/work/activity?container=ENG&q=asked&${query}`);
    clock += 89 * day;
    t.equal((await search('since=SVC_WORK@1:0')).status, 200, 'the log starts 89 days ago');
    clock += 2 * day;
    t.equal((await search('since=SVC_WORK@1:0')).json?.error, 'bad_params', 'the log starts 91 days ago');
    t.equal(
      (await search(`since=SVC_WORK@1:0&cursor=${String(rows[6]?.position)}`)).status,
      200,
      'a cursor at the head starts the read there',
    );
    clock -= 2 * day;
    const first = await search('since=SVC_WORK@1:0&limit=1');
    t.equal((first.json?.records as Json[]).length, 1);
    const next = await search(`cursor=${String(first.json?.next)}`);
    t.equal(next.status, 200, 'the next page needs no since beside its cursor');
    const [one, two] = [first, next].map((page) => (page.json?.records as Json[])[0]?.position);
    t.ok(one !== undefined && two !== undefined && one !== two, 'the second page goes on after the first');
  },
);
