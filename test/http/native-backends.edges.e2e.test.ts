/**
 * Outside-in pass over the work tracker and knowledge routes (spec "Work tracker and knowledge routes"):
 * wrong types, empty strings, huge values, unknown fields and repeated query parameters each answer a coded
 * 4xx with an `error` code (never a 5xx, never a 2xx that took the garbage). An empty parameter value is
 * read as the parameter absent (not tried here); a parameter a route does not read is refused, as
 * work-pages.query-params.e2e.test.ts shows.
 */
import t from 'tap';
import { OPS, call } from './fixtures/gateway-harness.js';
import { startPagesNode } from './fixtures/pages-node.js';
import { startWorkHarness } from './fixtures/work-harness.js';

const huge = 'x'.repeat(70_000);

t.test('every bad request to a /work route answers a coded 4xx', async (t) => {
  const w = await startWorkHarness(t);
  await call(`${w.base}/work`, {
    method: 'POST',
    headers: { authorization: OPS, 'content-type': 'application/json' },
    body: JSON.stringify({ project: 'ENG', title: 'First' }),
  });
  const gets = [
    '/work?status=todo&status=bogus',
    '/work?limit=abc',
    '/work?limit=-1',
    '/work?limit=99999999999999999999',
    '/work?project=ENG&project=OPS',
    '/work?cursor=abc',
    '/work/comments',
    '/work/comments?item=',
    '/work/comments?item=ENG-1&limit=0',
    '/work/comments?item=ENG-1&limit=51',
    '/work/comments?item=ENG-1&item=ENG-1',
    '/work/comments?item=ENG-1&cursor=zzz',
    '/work/turns?id=ENG-1&limit=x',
    '/work/turns',
    '/work/projects?archived=maybe',
    '/work/projects?sort=-',
    '/work/projects?sort=--key',
    '/work/projects?limit=201',
    '/work/projects?limit=0',
    '/work/projects/ENG?for_type=nope',
    '/work/projects/' + 'A'.repeat(300),
    '/work/catalogue?archived=maybe',
    '/work/views?viewer=%00',
    '/work/views/saved?counts=maybe',
    '/work/activity?since=x',
    '/work/activity?limit=201',
    '/work/activity?from=yesterday',
    '/work/activity?kinds=nope',
    '/work/activity?task=NOPE-1',
    '/work/activity?q=x',
    '/work/my-work?handle=' + 'a'.repeat(500),
    '/work/inbox?handle=ada&unread=maybe',
    '/work/inbox?handle=ada&snoozed=x',
    '/work/inbox?handle=ada&limit=51',
    '/work/inbox?handle=ada&reasons=nope',
    '/work/inbox?handle=ada&since=x',
    '/work/people/' + 'a'.repeat(300),
    '/work/people/%00',
    '/work/files',
    '/work/files?project=',
    '/work/files?project=ENG&limit=1001',
    '/work/files?project=ENG&limit=x',
    '/work/files?project=ENG&removed=maybe',
    '/work/files?project=NOPE',
    '/work/files/ENG/' + 'a'.repeat(5000),
    '/work/files/ENG/..%2F..%2Fetc',
    '/work/' + 'x'.repeat(200),
    '/work/%00',
  ];
  for (const path of gets) {
    const r = await call(`${w.base}${path}`, { headers: { authorization: OPS } });
    t.ok(r.status >= 400 && r.status < 500, `GET ${path.slice(0, 100)}: ${r.status}`);
    t.type(r.json?.error, 'string', `GET ${path.slice(0, 100)} names its error`);
  }
  const posts: Array<[string, string, unknown]> = [
    ['POST', '/work', { project: 'ENG', title: '' }],
    ['POST', '/work', { project: 'ENG', title: huge }],
    ['POST', '/work', { project: 'ENG', title: 'x', bogus: 1 }],
    ['POST', '/work', { project: 5, title: 'x' }],
    ['POST', '/work', { project: '', title: 'x' }],
    ['POST', '/work', { project: 'ENG', title: 'x', priority: 'huge' }],
    ['POST', '/work', { project: 'ENG', title: 'x', assignees: 'ada' }],
    ['POST', '/work', { project: 'ENG', title: 'x', assignees: ['nobody'] }],
    ['POST', '/work', { project: 'ENG', title: 'x', status: 'nope' }],
    ['POST', '/work', { project: 'ENG', title: 'x', description: huge + huge }],
    ['POST', '/work', { project: 'ENG', title: 'x', labels: [''] }],
    ['POST', '/work', { project: 'ENG', title: 'x', type: '' }],
    ['POST', '/work', { project: 'ENG', title: 'x', due: 'tomorrow' }],
    ['POST', '/work', { project: 'ENG', title: 'x', target_date: '2026-02-30' }],
    ['POST', '/work', []],
    ['POST', '/work', 'str'],
    ['POST', '/work', null],
    ['POST', '/work', 5],
    ['PATCH', '/work/ENG-1', {}],
    ['PATCH', '/work/ENG-1', { title: null }],
    ['PATCH', '/work/ENG-1', { bogus: 1 }],
    ['PATCH', '/work/ENG-1', { assignees: [5] }],
    ['POST', '/work/ENG-1/move', { to: '' }],
    ['POST', '/work/ENG-1/move', {}],
    ['POST', '/work/ENG-1/comments', { body: '' }],
    ['POST', '/work/ENG-1/comments', { body: '   ' }],
    ['POST', '/work/ENG-1/comments', { body: 5 }],
    ['POST', '/work/ENG-1/purge', {}],
    ['POST', '/work/ENG-1/purge', { confirm: 'ENG-2', project: 'ENG', reason: 'x' }],
    ['POST', '/work/ENG-1/purge', { confirm: 'ENG-1', project: 'ENG', reason: '' }],
    ['POST', '/work/ENG-1/purge', { confirm: 'ENG-1', project: 'ENG', reason: huge }],
    ['POST', '/work/inbox/read', { ids: 'x' }],
    ['POST', '/work/inbox/read', { ids: [''] }],
    ['POST', '/work/inbox/snooze', { ids: [], until: 'x' }],
    ['POST', '/work/inbox/snooze', {}],
    ['PUT', '/work/people/ada/priorities', { items: [''] }],
    ['PUT', '/work/people/ada/priorities', { items: Array(51).fill('ENG-1') }],
    ['PUT', '/work/people/nobody/priorities', { items: [] }],
    ['POST', '/work/views/saved', { name: '', filter: {} }],
    ['POST', '/work/views/saved', { name: 'x', filter: { bogus: 1 } }],
    ['POST', '/work/views/saved', { name: huge, filter: {} }],
    ['POST', '/work/views/pinned', { view: '' }],
    ['POST', '/work/views/pinned', { view: 'nope' }],
    ['POST', '/work/retention/ack', { holder: '', position: '' }],
    ['POST', '/work/retention/capacity', {}],
    ['POST', '/work/retention/capacity', { max_bytes: -1 }],
    ['POST', '/work/retention/capacity', { max_bytes: 1e400 }],
    ['POST', '/work/retention/reanchor', { generation: 'x' }],
    ['POST', '/work/retention/evict/' + 'n'.repeat(300), {}],
  ];
  for (const [method, path, body] of posts) {
    const r = await call(`${w.base}${path}`, {
      method,
      headers: { authorization: OPS, 'content-type': 'application/json' },
      body: typeof body === 'string' && body === 'str' ? 'not json' : JSON.stringify(body),
    });
    const what = `${method} ${path.slice(0, 60)} ${JSON.stringify(body).slice(0, 80)}`;
    t.ok(r.status >= 400 && r.status < 500, `${what}: ${r.status}`);
    t.type(r.json?.error, 'string', `${what} names its error`);
  }
  const put = await call(`${w.base}/work/files/ENG/a.txt?op_id=`, {
    method: 'PUT',
    headers: { authorization: OPS },
    body: 'x',
  });
  t.equal(put.json?.error, 'op_id_invalid', 'an empty ?op_id= is no retry handle');
});

t.test('every bad request to a /pages route answers a coded 4xx', async (t) => {
  const n = await startPagesNode(t);
  await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Page' } });
  const gets = [
    '/pages?limit=0',
    '/pages?limit=201',
    '/pages?limit=x',
    '/pages?limit=1&limit=2',
    '/pages?container=ENG&container=SALES',
    '/pages?container=NOPE',
    '/pages?parent=nope',
    '/pages?q=',
    '/pages?q=' + 'w '.repeat(300),
    '/pages?cursor=x',
    '/pages?q=%00',
    '/pages/' + 'x'.repeat(5000),
    '/pages/ENG/' + 'x'.repeat(3000),
    '/pages/%00',
    '/pages/ENG',
    '/pages/ENG/',
  ];
  for (const path of gets) {
    const r = await n.call('GET', path);
    t.ok(r.status >= 400 && r.status < 500, `GET ${path.slice(0, 100)}: ${r.status}`);
    t.type(r.json['error'], 'string', `GET ${path.slice(0, 100)} names its error`);
  }
  const writes: Array<[string, string, unknown]> = [
    ['POST', '/pages', { container: 'ENG', title: 'x', bogus: 1 }],
    ['POST', '/pages', { container: '', title: 'x' }],
    ['POST', '/pages', { container: 5, title: 'x' }],
    ['POST', '/pages', { container: 'ENG', title: 'x', parent: '' }],
    ['POST', '/pages', { container: 'ENG', title: 'x', parent: 'nope' }],
    ['POST', '/pages', { container: 'ENG', title: 'x', body: 5 }],
    ['POST', '/pages', { container: 'ENG', title: huge.slice(0, 300) }],
    ['POST', '/pages', []],
    ['POST', '/pages', null],
    ['PATCH', '/pages/ENG/Page', { base_version: 0, body: 'x' }],
    ['PATCH', '/pages/ENG/Page', { base_version: 'x', body: 'x' }],
    ['PATCH', '/pages/ENG/Page', { parent: 'ENG/Page' }],
    ['PATCH', '/pages/ENG/Page', { title: '' }],
    ['POST', '/pages/ENG/Page/comments', { body: '' }],
    ['POST', '/pages/ENG/Page/comments', {}],
    ['DELETE', '/pages/ENG/Page', { bogus: 1 }],
    ['DELETE', '/pages/ENG/Nope', {}],
  ];
  for (const [method, path, body] of writes) {
    const r = await n.call(method, path, { body });
    const what = `${method} ${path} ${JSON.stringify(body).slice(0, 80)}`;
    t.ok(r.status >= 400 && r.status < 500, `${what}: ${r.status}`);
    t.type(r.json['error'], 'string', `${what} names its error`);
  }
});
