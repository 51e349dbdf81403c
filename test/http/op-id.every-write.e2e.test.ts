/**
 * Spec Errors: a retry handle outside the grammar is 400 `op_id_invalid`, on every write that takes one.
 * A value that is not a string at all (`op_id: 5`) is outside it too, so the work writes answer it as the
 * page writes and `/operator/act` do, not as a body that does not fit (`invalid_body`).
 */
import t from 'tap';
import { Streams } from '../../bus/index.js';
import { OPS, call } from './fixtures/gateway-harness.js';
import { startPagesNode } from './fixtures/pages-node.js';
import { startWorkHarness } from './fixtures/work-harness.js';

const send = (url: string, body: unknown, method = 'POST') =>
  call(url, {
    method,
    headers: { authorization: OPS, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const notStrings: unknown[] = [5, true, null, ['op-1'], { id: 'op-1' }];

t.test('a non-string op_id is 400 op_id_invalid on every work write, nothing appended', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'First' });
  const saved = await send(`${w.base}/work/views/saved`, { name: 'Mine', filter: { project: 'ENG' } });
  const view = String((saved.json?.['view'] as { id?: string } | undefined)?.id ?? 'v');
  const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  const writes: Array<[string, string, Record<string, unknown>]> = [
    ['POST', '/work', { project: 'ENG', title: 'x' }],
    ['PATCH', '/work/ENG-1', { title: 'x' }],
    ['POST', '/work/ENG-1/move', { to: 'todo' }],
    ['POST', '/work/ENG-1/comments', { body: 'x' }],
    ['POST', '/work/ENG-1/purge', { confirm: 'ENG-1', project: 'ENG', reason: 'x' }],
    ['POST', '/work/inbox/read', { ids: [] }],
    ['PUT', '/work/people/ada/priorities', { items: [] }],
    ['POST', '/work/views/saved', { name: 'V', filter: { project: 'ENG' } }],
    ['PATCH', `/work/views/saved/${view}`, { name: 'W' }],
    ['POST', '/work/views/pinned', { view }],
    ['POST', '/work/retention/evict/node-9', {}],
    ['POST', '/work/retention/readmit/node-9', {}],
    ['POST', '/work/retention/capacity', { max_records: 10 }],
  ];
  for (const [method, path, body] of writes)
    for (const op_id of notStrings) {
      const r = await send(`${w.base}${path}`, { ...body, op_id }, method);
      const what = `${method} ${path} op_id ${JSON.stringify(op_id)}`;
      t.equal(r.status, 400, what);
      t.equal(r.json?.error, 'op_id_invalid', what);
      t.match(r.json?.detail, /op_id/, what);
    }
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing appended');
});

t.test('an op_id refused on a work write is refused before the rest of the body is judged', async (t) => {
  const w = await startWorkHarness(t);
  const r = await send(`${w.base}/work`, { title: 7, op_id: 5 });
  t.equal(r.json?.error, 'op_id_invalid', 'the retry handle first, as on the page writes');
  const p = await startPagesNode(t);
  const q = await p.call('POST', '/pages', { body: { title: 7, op_id: 5 } });
  t.equal(q.json['error'], 'op_id_invalid');
});

t.test('a non-string op_id is 400 op_id_invalid on every page write', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Page' } });
  const id = made.json['page_id'] as string;
  const writes: Array<[string, string, Record<string, unknown>]> = [
    ['POST', '/pages', { container: 'ENG', title: 'x' }],
    ['PATCH', `/pages/${id}`, { body: 'x' }],
    ['POST', `/pages/${id}/comments`, { body: 'x' }],
    ['DELETE', `/pages/${id}`, {}],
  ];
  for (const [method, path, body] of writes)
    for (const op_id of notStrings) {
      const r = await n.call(method, path, { body: { ...body, op_id } });
      t.equal(r.json['error'], 'op_id_invalid', `${method} ${path} op_id ${JSON.stringify(op_id)}`);
    }
});
