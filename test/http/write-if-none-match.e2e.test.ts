/**
 * `If-None-Match` on the writes of versioned work items, project files and knowledge pages (RFC 9110
 * 13.1.2, ops/work-tracker.md and ops/knowledge-base.md): `*` refuses a write to a target that exists, a tag
 * listing the current version (compared weakly) refuses the write, 412 `entity_exists`, nothing recorded.
 * A tag of another version lets the write proceed, taken only at the version the check saw.
 */
import t from 'tap';
import { Streams } from '../../bus/index.js';
import { OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness } from './fixtures/work-harness.js';
import { startPagesNode } from './fixtures/pages-node.js';

const send = (url: string, method: string, body: unknown, headers: Record<string, string> = {}) =>
  call(url, {
    method,
    headers: { authorization: OPS, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

t.test('item writes refuse 412 entity_exists when If-None-Match names the item', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, 'POST', { project: 'ENG', title: 'Kept' });
  const seq = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  const writes = [
    ['PATCH', '/work/ENG-1', { title: 'Lost' }],
    ['POST', '/work/ENG-1/move', { to: 'todo' }],
    ['POST', '/work/ENG-1/comments', { body: 'late' }],
    ['POST', '/work/ENG-1/purge', { confirm: 'ENG-1', project: 'ENG', reason: 'x' }],
  ] as const;
  for (const [method, path, body] of writes)
    for (const tag of ['*', '"1"', 'W/"1"', '"7", 1']) {
      const r = await send(`${w.base}${path}`, method, body, { 'if-none-match': tag });
      t.equal(r.status, 412, `${method} ${path} If-None-Match ${tag}`);
      t.equal(r.json?.error, 'entity_exists', `${method} ${path} If-None-Match ${tag}`);
    }
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, seq, 'nothing recorded');
  const other = await send(`${w.base}/work/ENG-1`, 'PATCH', { title: 'Taken' }, { 'if-none-match': '"7"' });
  t.equal(other.status, 200, 'a tag of another version lets the write proceed');
  const both = await send(
    `${w.base}/work/ENG-1`,
    'PATCH',
    { title: 'Both' },
    {
      'if-match': '"2"',
      'if-none-match': '"2"',
    },
  );
  t.equal(both.status, 412, 'If-None-Match is decided against the version If-Match pins');
});

t.test('a file PUT with If-None-Match * creates only: 412 entity_exists on an existing path', async (t) => {
  const w = await startWorkHarness(t);
  const url = `${w.base}/work/files/ENG/docs/plan.md`;
  const first = await send(url, 'PUT', '# Plan\n', { 'if-none-match': '*', 'content-type': 'text/markdown' });
  t.equal(first.status, 201, 'a new path is created under If-None-Match *');
  const retried = await send(`${url}?op_id=create-once`, 'PUT', 'x', { 'if-none-match': '*' });
  t.equal(retried.status, 412, 'another create-only write of the path is refused');
  const other = `${w.base}/work/files/ENG/docs/other.md?op_id=create-twice`;
  t.equal((await send(other, 'PUT', 'o', { 'if-none-match': '*' })).status, 201);
  const again = await send(other, 'PUT', 'o', { 'if-none-match': '*' });
  t.equal(again.json?.outcome, 'repeated', 'a retry of its op_id answers its first outcome, not 412');
  const seq = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  for (const [method, headers] of [
    ['PUT', { 'if-none-match': '*' }],
    ['PUT', { 'if-none-match': '*', 'if-match': '"1"' }],
    ['PUT', { 'if-none-match': 'W/"1"', 'if-match': '"1"' }],
    ['DELETE', { 'if-none-match': '"1"', 'if-match': '"1"' }],
    ['DELETE', { 'if-none-match': '*', 'if-match': '"1"' }],
  ] as const) {
    const r = await send(url, method, 'over', headers);
    t.equal(r.status, 412, `${method} ${JSON.stringify(headers)}`);
    t.equal(r.json?.error, 'entity_exists', `${method} ${JSON.stringify(headers)}`);
  }
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, seq, 'nothing recorded');
  t.equal((await call(url)).text, '# Plan\n', 'the file stays');
  const replaced = await send(url, 'PUT', 'v2', { 'if-none-match': '"5"', 'if-match': '"1"' });
  t.equal(replaced.status, 200, 'a tag of another version lets the replacement proceed');
});

t.test('page writes refuse 412 entity_exists when If-None-Match names the page', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Kept' } });
  const id = made.json['page_id'] as string;
  const before = (await n.bus.streamInfo('SVC_PAGES')).messages;
  for (const tag of ['*', '"1"', 'W/"1"', '"3", "1"']) {
    const edit = await n.call('PATCH', `/pages/${id}`, {
      body: { body: 'lost' },
      headers: { 'if-none-match': tag },
    });
    t.match(edit, { status: 412, json: { error: 'entity_exists' } }, `PATCH If-None-Match ${tag}`);
    const del = await n.call('DELETE', `/pages/${id}`, { headers: { 'if-none-match': tag } });
    t.match(del, { status: 412, json: { error: 'entity_exists' } }, `DELETE If-None-Match ${tag}`);
  }
  t.equal((await n.bus.streamInfo('SVC_PAGES')).messages, before, 'nothing recorded');
  const page = await n.call('GET', `/pages/${id}`);
  t.equal(page.json['version'], 1, 'the page stays as it was');
  const other = await n.call('PATCH', `/pages/${id}`, {
    body: { body: 'taken' },
    headers: { 'if-none-match': '"3"' },
  });
  t.equal(other.status, 200, 'a tag of another version lets the write proceed');
});
