import t from 'tap';
import { CI, OPS, call, openAuth } from './fixtures/gateway-harness.js';
import { get, post, startRetentionHarness, type Json } from './fixtures/retention-harness.js';

const gestures: Array<[string, Json]> = [
  ['/work/retention/ack', { holder: 'backup', position: 'SVC_WORK@1:0' }],
  ['/work/retention/evict/node-0', {}],
  ['/work/retention/readmit/node-0', {}],
  ['/work/retention/capacity', { max_records: 10 }],
  ['/work/retention/maintenance', {}],
  ['/work/retention/maintenance/abandon', {}],
  ['/work/retention/maintenance/exclude', { node: 'node-0' }],
  ['/work/retention/reanchor', { generation: 1, reason: 'x' }],
  ['/work/retention/trim', {}],
];
const reads = ['/work/retention', '/work/retention/maintenance', '/work/retention/reanchor'];

t.test('every retention route needs a token, reads included, and an operator', async (t) => {
  const w = await startRetentionHarness(t);
  const seq = await w.lastSeq();
  for (const path of reads) {
    const r = await get(`${w.base}${path}`, null);
    t.equal(r.status, 401, `GET ${path}`);
    t.equal(r.json?.error, 'invalid_token');
    t.equal((await get(`${w.base}${path}`, 'Bearer wrong')).status, 401, `GET ${path} with a wrong token`);
    t.equal((await get(`${w.base}${path}`, CI)).status, 200, `GET ${path} with another operator token`);
  }
  for (const [path, body] of gestures) {
    const r = await post(`${w.base}${path}`, body, null);
    t.equal(r.status, 401, `POST ${path}`);
  }
  t.equal(await w.lastSeq(), seq, 'nothing recorded');
  const open = await startRetentionHarness(t, { auth: { ...openAuth, disabled: true } });
  for (const path of reads) {
    const r = await get(`${open.base}${path}`, null);
    t.equal(r.status, 403, `GET ${path} with the guard disabled`);
    t.equal(r.json?.error, 'guard_disabled');
  }
  const before = await open.lastSeq();
  for (const [path, body] of gestures) {
    const r = await post(`${open.base}${path}`, body, null);
    t.equal(r.status, 403, `POST ${path} with the guard disabled`);
    t.equal(r.json?.error, 'guard_disabled');
  }
  t.equal(await open.lastSeq(), before, 'nothing recorded');
});

t.test('bad bodies and bad op_ids are refused before anything is recorded', async (t) => {
  const w = await startRetentionHarness(t);
  await w.ack();
  const seq = await w.lastSeq();
  for (const [path, body] of gestures) {
    const notJson = await post(`${w.base}${path}`, '{');
    t.equal(notJson.status, 400, `${path} not JSON`);
    t.equal(notJson.json?.error, 'invalid_body');
    const unknown = await post(`${w.base}${path}`, { ...body, surprise: 1 });
    t.equal(unknown.json?.error, 'invalid_body', `${path} unknown field`);
    for (const op_id of ['x'.repeat(129), 'has space', '']) {
      const r = await post(`${w.base}${path}`, { ...body, op_id });
      t.equal(r.status, 400, `${path} op_id ${op_id.slice(0, 8)}`);
      t.equal(r.json?.error, 'op_id_invalid');
    }
    const query = await post(`${w.base}${path}?op_id=${'y'.repeat(129)}`, body);
    t.equal(query.json?.error, 'op_id_invalid', `${path} op_id in the query`);
  }
  for (const body of [
    {},
    { max_records: 0 },
    { max_bytes: -1 },
    { max_age_seconds: 1.5 },
    { max_records: 'ten' },
  ]) {
    const r = await post(`${w.base}/work/retention/capacity`, body);
    t.equal(r.json?.error, 'invalid_body', JSON.stringify(body));
  }
  const long = await post(`${w.base}/work/retention/evict/node-0`, { reason: 'x'.repeat(601) });
  t.equal(long.json?.error, 'invalid_body', 'a reason over 600 bytes');
  for (const gesture of ['evict', 'readmit']) {
    const r = await post(`${w.base}/work/retention/${gesture}/${'n'.repeat(5000)}`, {});
    t.equal(r.status, 404, `${gesture} of a name longer than any holder's`);
    t.equal(r.json?.error, 'not_found');
    t.ok(
      String(r.json?.detail).length < 200,
      `${gesture}: the detail quotes the name cut, not 5,000 characters`,
    );
  }
  t.equal(await w.lastSeq(), seq, 'nothing recorded');
});

t.test('capacity: limits set, cleared, and the status says which the log is over', async (t) => {
  const w = await startRetentionHarness(t);
  await w.ack();
  await post(`${w.base}/work`, { project: 'ENG', title: 'One' });
  const set = await post(`${w.base}/work/retention/capacity`, {
    max_records: 2,
    max_bytes: 1_000_000,
    op_id: 'cap-1',
  });
  t.equal(set.status, 200);
  t.match(set.json, { outcome: 'applied', kind: 'retention.capacity_set' });
  t.match(set.json?.capacity, { max_records: 2, max_bytes: 1_000_000, max_age_seconds: null, auto_trim: false, set_by: 'ada' }); // prettier-ignore
  const status = (await get(`${w.base}/work/retention`)).json!;
  t.same(status.over_capacity, ['records'], 'three records against two');
  t.match((await post(`${w.base}/work/retention/capacity`, { max_records: 9, op_id: 'cap-1' })).json, {
    outcome: 'repeated',
    position: set.json?.position,
  });
  const same = await post(`${w.base}/work/retention/capacity`, { max_records: 2 });
  t.equal(same.status, 400, 'the same limits change nothing');
  const cleared = await post(`${w.base}/work/retention/capacity`, { max_records: null });
  t.match(cleared.json?.capacity, { max_records: null, max_bytes: 1_000_000 }, 'a limit not named is kept');
  t.same((await get(`${w.base}/work/retention`)).json?.over_capacity, []);
  const auto = await post(`${w.base}/work/retention/capacity`, { auto_trim: true });
  t.match(auto.json?.capacity, { auto_trim: true, max_bytes: 1_000_000 }, 'auto_trim alone is a change');
  t.equal((await post(`${w.base}/work/retention/capacity`, { auto_trim: 'yes' })).status, 400);
  t.equal((await w.events('work_retention_capacity_set')).length, 3);
});

t.test('maintenance window: opened, a node excluded, abandoned; no trim while it is open', async (t) => {
  const w = await startRetentionHarness(t);
  await w.ack();
  await post(`${w.base}/work/retention/ack`, { holder: 'backup', position: 'SVC_WORK@1:0' });
  const none = await get(`${w.base}/work/retention/maintenance`);
  t.match(none.json, { window: null, last: null, trim: { available: true, last: null } });
  for (const [path, body] of [
    ['/work/retention/maintenance/abandon', {}],
    ['/work/retention/maintenance/exclude', { node: 'node-0' }],
  ] as const) {
    const r = await post(`${w.base}${path}`, body);
    t.equal(r.status, 409, path);
    t.equal(r.json?.error, 'no_maintenance_window');
  }
  const opened = await post(`${w.base}/work/retention/maintenance`, { reason: 'weekly', op_id: 'win-1' });
  t.equal(opened.status, 200);
  t.match(opened.json?.window, {
    id: 'win-1',
    state: 'open',
    participants: ['backup', 'node-0'],
    waiting_on: ['backup', 'node-0'],
    below: 'SVC_WORK@1:0',
    reason: 'weekly',
  });
  const second = await post(`${w.base}/work/retention/maintenance`, {});
  t.equal(second.status, 409);
  t.equal(second.json?.error, 'maintenance_open');
  const reanchor = await post(`${w.base}/work/retention/reanchor`, { generation: 1, reason: 'x' });
  t.equal(reanchor.json?.error, 'maintenance_open', 'no reanchor while a window is open');
  const ghost = await post(`${w.base}/work/retention/maintenance/exclude`, { node: 'ghost' });
  t.equal(ghost.status, 404);
  t.equal(ghost.json?.error, 'not_found');
  const excluded = await post(`${w.base}/work/retention/maintenance/exclude`, {
    node: 'backup',
    op_id: 'x-1',
  });
  t.equal(excluded.status, 200);
  t.match(excluded.json?.window, { excluded: ['backup'], waiting_on: ['node-0'] });
  t.match(
    (await post(`${w.base}/work/retention/maintenance/exclude`, { node: 'backup', op_id: 'x-1' })).json,
    {
      outcome: 'repeated',
    },
  );
  t.equal((await post(`${w.base}/work/retention/maintenance/exclude`, { node: 'backup' })).status, 400);
  t.match((await get(`${w.base}/work/retention`)).json?.maintenance, { id: 'win-1', state: 'open' });
  const seq = await w.lastSeq();
  const trim = await post(`${w.base}/work/retention/trim`, { op_id: 't-1' });
  t.equal(trim.status, 409);
  t.equal(trim.json?.error, 'maintenance_open');
  t.equal(await w.lastSeq(), seq, 'a refused trim records nothing');
  const abandoned = await post(`${w.base}/work/retention/maintenance/abandon`, {
    reason: 'not now',
    op_id: 'ab-1',
  });
  t.equal(abandoned.status, 200);
  t.match(abandoned.json?.window, {
    id: 'win-1',
    state: 'abandoned',
    waiting_on: [],
    closed: { by: 'ada', reason: 'not now' },
  });
  const after = await get(`${w.base}/work/retention/maintenance`);
  t.match(after.json, { window: null, last: { id: 'win-1', state: 'abandoned' } });
  const retried = await post(`${w.base}/work/retention/maintenance`, { op_id: 'win-1' });
  t.match(retried.json, { outcome: 'repeated', window: { id: 'win-1', state: 'abandoned' } });
  for (const type of ['work_maintenance_opened', 'work_maintenance_excluded', 'work_maintenance_abandoned'])
    t.equal((await w.events(type)).length, 1, type);
});

t.test('/work/retention and its sibling names answer 405 with the methods their routes offer', async (t) => {
  const w = await startRetentionHarness(t);
  const seq = await w.lastSeq();
  const asked = (method: string, path: string) =>
    call(`${w.base}${path}`, {
      method,
      headers: { authorization: OPS, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x' }),
    });
  // `Allow` without the HEAD a GET may also answer: what matters is that no PATCH or DELETE is named.
  const served = (r: { headers: Headers }) =>
    (r.headers.get('allow') ?? '').split(', ').filter((m) => m !== 'HEAD');
  for (const method of ['PATCH', 'DELETE', 'PUT']) {
    const r = await asked(method, '/work/retention');
    t.equal(r.status, 405, `${method} /work/retention`);
    t.equal(r.json?.error, 'method_not_allowed');
    t.same(served(r), ['GET'], 'only the status read is served there');
  }
  // Every other literal name under /work is a route of its own, never an item called that.
  for (const path of ['/work/comments', '/work/projects', '/work/views', '/work/inbox', '/work/activity']) {
    const r = await asked('PATCH', path);
    t.equal(r.status, 405, `PATCH ${path}`);
    t.same(served(r), ['GET'], path);
  }
  t.equal((await asked('POST', '/work/retention/purge')).json?.error, 'no_route');
  t.equal(await w.lastSeq(), seq, 'nothing recorded');
});
