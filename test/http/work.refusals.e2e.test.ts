/**
 * Bad input on the `/work` routes gets a clear spec-shaped refusal and changes nothing: an `If-Match` no
 * version could be, ids longer than any key, id or view id, an unknown activity kind, and the
 * operator-only writes called while the guard is disabled.
 */
import t from 'tap';
import { Streams } from '../../bus/index.js';
import { OPS, call, openAuth } from './fixtures/gateway-harness.js';
import { startWorkHarness, type WorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const send = (url: string, body: unknown, method = 'POST', headers: Record<string, string> = {}) =>
  call(url, {
    method,
    headers: { authorization: OPS, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const lastSeq = async (w: WorkHarness) => (await w.bus.streamInfo(Streams.Work)).lastSeq;

t.test('a file If-Match that no version could be is 400 bad_params, however long', async (t) => {
  const w = await startWorkHarness(t);
  const put = (ifMatch?: string) =>
    call(`${w.base}/work/files/ENG/a.txt`, {
      method: 'PUT',
      headers: { authorization: OPS, ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
      body: 'bytes',
    });
  t.equal((await put()).status, 201);
  const before = await lastSeq(w);
  for (const tag of [
    `"${'9'.repeat(16)}"`,
    '9'.repeat(3000),
    `"${'1'.repeat(20_000)}"`,
    'x'.repeat(20_000),
  ]) {
    const r = await put(tag);
    t.equal(r.status, 400, `If-Match of ${tag.length} characters`);
    t.equal(r.json?.error, 'bad_params');
  }
  t.equal(await lastSeq(w), before, 'nothing recorded');
  t.equal((await put('"1"')).status, 200, 'the current version still replaces it');
});

t.test('ids longer than any key, id or view id answer 404 not_found and record nothing', async (t) => {
  const w = await startWorkHarness(t);
  t.equal((await send(`${w.base}/work`, { project: 'ENG', title: 'Real' })).status, 201);
  const before = await lastSeq(w);
  const long = 'a'.repeat(5000);
  const writes: Array<[string, string, unknown]> = [
    ['PATCH', `/work/${long}`, { title: 'x' }],
    ['POST', `/work/${long}/move`, { to: 'todo' }],
    ['POST', `/work/${long}/comments`, { body: 'x' }],
    ['POST', `/work/${long}/purge`, { confirm: 'ENG-1', project: 'ENG', reason: 'r' }],
    ['PATCH', `/work/views/saved/${long}`, { name: 'x' }],
    ['DELETE', `/work/views/saved/${long}`, {}],
    ['DELETE', `/work/views/pinned/${long}`, {}],
  ];
  for (const [method, path, body] of writes) {
    const r = await send(`${w.base}${path}`, body, method);
    t.equal(r.status, 404, `${method} ${path.slice(0, 30)}…`);
    t.equal(r.json?.error, 'not_found');
    t.ok(String(r.json?.detail).length < 200, 'the detail does not echo the whole id');
  }
  for (const path of [`/work/${long}`, `/work/comments?item=${long}`, `/work/activity?task=${long}`]) {
    const r = await call(`${w.base}${path}`);
    t.equal(r.status, 404, `GET ${path.slice(0, 30)}…`);
    t.ok(String(r.json?.detail).length < 200, 'the detail does not echo the whole id');
  }
  t.equal(await lastSeq(w), before, 'nothing recorded');
});

t.test('an unknown activity kind is 400 bad_params naming kinds; a task is named by key or id', async (t) => {
  const w = await startWorkHarness(t);
  const made = await send(`${w.base}/work`, { project: 'ENG', title: 'Watched' });
  const bad = await call(`${w.base}/work/activity?kinds=item.created,item.bogus`);
  t.equal(bad.status, 400);
  t.equal(bad.json?.error, 'bad_params');
  t.match(bad.json?.detail, /kinds: unknown kind "item\.bogus"/);
  const byKey = await call(`${w.base}/work/activity?task=eng-1&kinds=item.created`);
  t.equal(byKey.status, 200);
  t.same(
    (byKey.json?.records as Array<{ kind: string }>).map((r) => r.kind),
    ['item.created'],
  );
  const id = (made.json?.item as { id: string }).id;
  const byId = await call(`${w.base}/work/activity?task=${id}`);
  t.equal((byId.json?.records as unknown[]).length, 1, 'the id names it too');
});

t.test('with the guard disabled a purge and file writes are refused 403 guard_disabled', async (t) => {
  const w = await startWorkHarness(t, { auth: { ...openAuth, disabled: true } });
  const anon = (url: string, init: RequestInit) => call(url, init);
  const created = await anon(`${w.base}/work`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ project: 'ENG', title: 'Keep me' }),
  });
  t.equal(created.status, 201, 'ordinary writes are open with the guard disabled');
  const before = await lastSeq(w);
  const purge = await anon(`${w.base}/work/ENG-1/purge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ confirm: 'ENG-1', project: 'ENG', reason: 'gone' }),
  });
  t.equal(purge.status, 403);
  t.equal(purge.json?.error, 'guard_disabled');
  for (const method of ['PUT', 'DELETE']) {
    const r = await anon(`${w.base}/work/files/ENG/a.txt`, { method, body: method === 'PUT' ? 'x' : null });
    t.equal(r.status, 403, `${method} a file`);
    t.equal(r.json?.error, 'guard_disabled');
  }
  t.equal(await lastSeq(w), before, 'nothing recorded');
  t.same(await w.files.keys(), [], 'no bytes stored');
  t.equal((await call(`${w.base}/work/ENG-1`)).status, 200, 'the item stays');
});

t.test('a file PUT refused for its path or If-Match stores no bytes', async (t) => {
  const w = await startWorkHarness(t);
  const put = (path: string, body: string, ifMatch?: string) =>
    call(`${w.base}/work/files/ENG/${path}`, {
      method: 'PUT',
      headers: { authorization: OPS, ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
      body,
    });
  t.equal((await put('a.txt', 'first')).status, 201);
  const kept = await w.files.keys();
  t.equal(kept.length, 1);
  const refused = [
    await put('a.txt', 'no If-Match'),
    await put('a.txt', 'stale', '"7"'),
    await put('new.txt', 'If-Match on a new path', '"1"'),
    await put('bad~name.txt', 'a bad path'),
  ];
  t.same(
    refused.map((r) => r.json?.error),
    ['revision_advanced', 'revision_advanced', 'precondition_failed', 'validation_error'],
  );
  t.same(await w.files.keys(), kept, 'only the first version has bytes');
  const again = await put('a.txt', 'second', '"1"');
  t.equal(again.status, 200);
  t.equal((await w.files.keys()).length, 2, 'an accepted replacement stores its bytes');
});

t.test('a project key names its project in any case on every /work route', async (t) => {
  const w = await startWorkHarness(t);
  const created = await send(`${w.base}/work`, { project: 'eng', title: 'Lower-case project' });
  t.equal(created.status, 201);
  t.equal(created.json?.key, 'ENG-1');
  t.equal((await call(`${w.base}/work/projects/eng`)).json?.key, 'ENG');
  const listed = await call(`${w.base}/work?project=eng`);
  t.equal((listed.json?.items as unknown[]).length, 1);
  const file = await call(`${w.base}/work/files/eng/notes.md`, {
    method: 'PUT',
    headers: { authorization: OPS },
    body: 'n',
  });
  t.equal(file.status, 201);
  t.equal((await call(`${w.base}/work/files/ENG/notes.md`)).status, 200, 'stored under ENG');
  t.equal((await call(`${w.base}/work/files?project=eng`)).json?.project, 'ENG');
  t.equal((await call(`${w.base}/work/activity?container=eng`)).json?.records instanceof Array, true);
  t.equal(
    ((await call(`${w.base}/work/activity?container=eng`)).json?.records as unknown[]).length,
    1,
    'activity of the container in any case',
  );
  const views = await call(`${w.base}/work/views?container=eng`, { headers: { authorization: OPS } });
  t.equal(views.status, 200);
  const pin = await send(`${w.base}/work/views/pinned`, { view: 'eng:board' });
  t.equal(pin.status, 200);
  t.same(
    ((pin.json?.person as { pinned_views: Array<{ id: string }> }).pinned_views ?? []).map((v) => v.id),
    ['ENG:board'],
  );
  const saved = await send(`${w.base}/work/views/saved`, { name: 'Mine', filter: { project: 'eng' } });
  t.equal(saved.status, 201);
  t.equal((saved.json?.view as { filter: { project: string } }).filter.project, 'ENG');
  t.equal((await send(`${w.base}/work/views/pinned/eng:board`, {}, 'DELETE')).status, 200, 'unpinned');
  const purge = await send(`${w.base}/work/ENG-1/purge`, { confirm: 'ENG-1', project: 'eng', reason: 'x' });
  t.equal(purge.status, 200, 'a purge names the project in any case');
});

t.test('a person named outside the handle grammar is 400 bad_params; any case names the seat', async (t) => {
  const w = await startWorkHarness(t);
  const before = await lastSeq(w);
  const long = 'a'.repeat(5000);
  const auth = { headers: { authorization: OPS } };
  for (const path of [
    `/work/people/${long}`,
    `/work/my-work?handle=A*B`,
    `/work/inbox?handle=${long}`,
    `/work/views/saved?viewer=-ada`,
  ]) {
    const r = await call(`${w.base}${path}`, auth);
    t.equal(r.status, 400, `GET ${path.slice(0, 30)}`);
    t.equal(r.json?.error, 'bad_params');
    t.ok(String(r.json?.detail).length < 300, 'the detail is cut');
  }
  for (const [method, path, body] of [
    ['PUT', `/work/people/${long}/priorities`, { items: [] }],
    ['POST', `/work/views/saved?handle=${long}`, { name: 'x' }],
  ] as const) {
    const r = await send(`${w.base}${path}`, body, method);
    t.equal(r.status, 400, `${method} ${path.slice(0, 30)}`);
    t.equal(r.json?.error, 'bad_params');
  }
  t.equal(await lastSeq(w), before, 'nothing recorded');
  const upper = await call(`${w.base}/work/people/BOB`, auth);
  t.equal(upper.status, 200);
  t.equal(upper.json?.handle, 'bob');
  const prio = await send(`${w.base}/work/people/Bob/priorities`, { items: [] }, 'PUT');
  t.equal(prio.status, 200);
  t.equal(prio.json?.handle, 'bob');
});

t.test('a file Content-Type longer than any media type is 400 bad_params and stores nothing', async (t) => {
  const w = await startWorkHarness(t);
  const r = await call(`${w.base}/work/files/ENG/a.txt`, {
    method: 'PUT',
    headers: { authorization: OPS, 'content-type': `text/${'x'.repeat(6000)}` },
    body: 'hi',
  });
  t.equal(r.status, 400);
  t.equal(r.json?.error, 'bad_params');
  t.same(await w.files.keys(), []);
});

t.test('activity from/to must name a day that exists; handles filter in any case', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Assigned', assignees: ['ada'] });
  for (const q of ['from=2026-02-30T00:00:00Z', 'to=2027-04-31T12:00:00Z', 'from=2026-02-28T00:00:00']) {
    const r = await call(`${w.base}/work/activity?${q}`);
    t.equal(r.status, 400, q);
    t.equal(r.json?.error, 'bad_params');
  }
  t.equal((await call(`${w.base}/work/activity?from=2026-02-28T00:00:00Z`)).status, 200);
  t.equal(((await call(`${w.base}/work?assignee=ADA`)).json?.items as unknown[]).length, 1);
  const assigned = await call(`${w.base}/work/activity?assignee=Ada`);
  t.equal((assigned.json?.records as unknown[]).length, 1);
});

t.test(
  'activity with from later than to is 400 bad_params naming both; a since past the head is empty',
  async (t) => {
    const w = await startWorkHarness(t);
    await send(`${w.base}/work`, { project: 'ENG', title: 'Dated' });
    const r = await call(`${w.base}/work/activity?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z`);
    t.equal(r.status, 400);
    t.equal(r.json?.error, 'bad_params');
    t.match(r.json?.detail, /from .*later than to/);
    const same = await call(`${w.base}/work/activity?from=2026-03-01T00:00:00Z&to=2026-03-01T00:00:00Z`);
    t.equal(same.status, 200, 'from equal to to is one instant');
    // Offsets count: 01:00+02:00 is 23:00Z the day before, earlier than to.
    const offset = await call(
      `${w.base}/work/activity?from=2026-03-02T01:00:00%2B02:00&to=2026-03-01T23:30:00Z`,
    );
    t.equal(offset.status, 200, 'compared as instants, not as text');
    // `since` is a cursor: past the head it reads nothing yet, rather than being refused.
    const ahead = await call(`${w.base}/work/activity?since=SVC_WORK@1:999999`);
    t.equal(ahead.status, 200);
    t.same(ahead.json?.records, []);
    t.equal(ahead.json?.exhausted, true);
  },
);

t.test("a purged item's activity is found by its key as by its id", async (t) => {
  const w = await startWorkHarness(t);
  const made = await send(`${w.base}/work`, { project: 'ENG', title: 'Short-lived' });
  const id = (made.json?.item as { id: string }).id;
  t.equal(
    (await send(`${w.base}/work/ENG-1/purge`, { confirm: 'ENG-1', project: 'ENG', reason: 'x' })).status,
    200,
  );
  for (const task of ['ENG-1', 'eng-1', id]) {
    const r = await call(`${w.base}/work/activity?task=${task}`);
    t.equal(r.status, 200, task);
    t.same(
      (r.json?.records as Array<{ kind: string }>).map((x) => x.kind),
      ['item.purged'],
    );
  }
  t.equal((await call(`${w.base}/work/activity?task=ENG-2`)).status, 404, 'a key never given is not found');
});

t.test('a log position past a safe integer is refused 400, not carried to the writer', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Row' });
  const before = await lastSeq(w);
  const huge = 'SVC_WORK@1:99999999999999999999';
  const writes: Array<[string, unknown]> = [
    ['/work/inbox/read', { all_before: huge }],
    ['/work/inbox/read', { ids: [huge] }],
    ['/work/inbox/snooze', { ids: ['SVC_WORK@1:9007199254740993'], until: '2099-01-01T00:00:00Z' }],
    ['/work/retention/ack', { holder: 'backup', position: huge }],
  ];
  for (const [path, body] of writes) {
    const r = await send(`${w.base}${path}`, body);
    t.equal(r.status, 400, path);
    t.equal(r.json?.error, 'invalid_body');
  }
  for (const q of [`since=${huge}`, `cursor=SVC_WORK@99999999999999999999:1`]) {
    const r = await call(`${w.base}/work/activity?${q}`);
    t.equal(r.status, 400, q);
    t.equal(r.json?.error, 'bad_params');
  }
  t.equal(await lastSeq(w), before, 'nothing recorded');
});

t.test(
  'a purge reason with a control character or a lone surrogate is refused, nothing destroyed',
  async (t) => {
    const w = await startWorkHarness(t);
    await send(`${w.base}/work`, { project: 'ENG', title: 'Keep me' });
    const before = await lastSeq(w);
    for (const reason of ['a\u0000b\u0085c', 'bell\u0007', 'csi \u009b', 'lone \ud800']) {
      const r = await send(`${w.base}/work/ENG-1/purge`, { confirm: 'ENG-1', project: 'ENG', reason });
      t.equal(r.status, 400, JSON.stringify(reason));
      t.equal(r.json?.error, 'validation_error');
      t.match(r.json?.problems, [{ path: 'reason' }]);
    }
    t.equal(await lastSeq(w), before, 'nothing recorded');
    t.equal((await call(`${w.base}/work/ENG-1`)).status, 200, 'the item stays');
    const folded = await send(`${w.base}/work/ENG-1/purge`, {
      confirm: 'ENG-1',
      project: 'ENG',
      reason: 'pasted\n\ta secret',
    });
    t.equal(folded.status, 200, 'tabs and line breaks are whitespace, folded into one line');
    const rows = (await call(`${w.base}/work/activity?task=ENG-1`)).json?.records as Json[];
    t.match(rows, [{ kind: 'item.purged' }]);
  },
);

t.test('a purge given both a JSON body and query values is refused 400, not half read', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Keep me' });
  const before = await lastSeq(w);
  const body = { confirm: 'ENG-1', project: 'ENG', reason: 'from the body' };
  for (const query of ['reason=from%20the%20query', 'confirm=ENG-1', 'project=ENG&reason=r']) {
    const r = await send(`${w.base}/work/ENG-1/purge?${query}`, body);
    t.equal(r.status, 400, query);
    t.equal(r.json?.error, 'bad_params');
    t.match(r.json?.detail, /body or as query parameters, not both/);
  }
  t.equal(await lastSeq(w), before, 'nothing recorded');
  const viaQuery = await call(`${w.base}/work/ENG-1/purge?confirm=ENG-1&project=ENG&reason=q&op_id=p-q`, {
    method: 'POST',
    headers: { authorization: OPS },
  });
  t.equal(viaQuery.status, 200, 'the query alone still carries a purge');
  t.equal(viaQuery.json?.op_id, 'p-q');
  await send(`${w.base}/work`, { project: 'ENG', title: 'Second' });
  const opIdBoth = await send(`${w.base}/work/ENG-2/purge?op_id=p-b`, { ...body, confirm: 'ENG-2' });
  t.equal(opIdBoth.status, 200, 'op_id may still come as ?op_id= with a body');
  t.equal(opIdBoth.json?.op_id, 'p-b');
});

t.test('a work item not found answers one wording on reads and writes, the id cut at 80', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Real' });
  const expected = 'no work item "ENG-9"';
  const answers = [
    await call(`${w.base}/work/ENG-9`),
    await call(`${w.base}/work/comments?item=ENG-9`),
    await send(`${w.base}/work/ENG-9`, { title: 'x' }, 'PATCH'),
    await send(`${w.base}/work/ENG-9/move`, { to: 'todo' }),
    await send(`${w.base}/work/ENG-9/comments`, { body: 'x' }),
    await send(`${w.base}/work/ENG-9/purge`, { confirm: 'ENG-9', project: 'ENG', reason: 'r' }),
  ];
  for (const r of answers) {
    t.equal(r.status, 404);
    t.equal(r.json?.error, 'not_found');
    t.equal(r.json?.detail, expected);
  }
  const long = 'E'.repeat(80);
  const cut = `no work item "${long}…"`;
  t.equal((await call(`${w.base}/work/${long}x`)).json?.detail, cut);
  t.equal((await send(`${w.base}/work/${long}x`, { title: 'x' }, 'PATCH')).json?.detail, cut);
  t.equal(
    (await send(`${w.base}/work/${long}`, { title: 'x' }, 'PATCH')).json?.detail,
    `no work item "${long}"`,
  );
});
