/**
 * The first outcome of a page write's op_id is final whatever happened since (ops/knowledge-base.md "op_id
 * and retries"): a retry after its page was renamed or deleted answers that outcome, and the op_id sent
 * with a write naming another target is 409 `op_id_reused`, never answered as the first write.
 */
import t from 'tap';
import { startPagesNode, type PagesNode } from './fixtures/pages-node.js';

type Json = Record<string, unknown>;

const stored = async (n: PagesNode): Promise<number> => (await n.bus.streamInfo('SVC_PAGES')).messages;

async function makePage(n: PagesNode, container: string, title: string, parent?: string): Promise<string> {
  const r = await n.call('POST', '/pages', {
    body: { container, title, ...(parent === undefined ? {} : { parent }) },
  });
  if (r.status !== 201) throw new Error(`create answered ${r.status}: ${JSON.stringify(r.json)}`);
  return r.json['page_id'] as string;
}

t.test('an update or comment retried after its page was deleted answers its first outcome', async (t) => {
  const n = await startPagesNode(t);
  const id = await makePage(n, 'ENG', 'Doomed');
  const patch = await n.call('PATCH', `/pages/${id}?op_id=t2`, { body: { body: 'edited' } });
  const comment = await n.call('POST', `/pages/${id}/comments?op_id=t3`, { body: { body: 'noted' } });
  t.equal(patch.status, 200);
  t.equal(comment.status, 201);
  t.equal((await n.call('DELETE', `/pages/${id}`)).status, 200);
  const before = await stored(n);

  const patchAgain = await n.call('PATCH', `/pages/${id}?op_id=t2`, { body: { body: 'edited' } });
  t.equal(patchAgain.status, 200, JSON.stringify(patchAgain.json));
  t.match(patchAgain.json, { op_id: 't2', repeated: true, page_id: id, version: 2, page: null });
  const commentAgain = await n.call('POST', `/pages/${id}/comments?op_id=t3`, { body: { body: 'noted' } });
  t.equal(commentAgain.status, 200, JSON.stringify(commentAgain.json));
  t.match(commentAgain.json, {
    op_id: 't3',
    repeated: true,
    page_id: id,
    comment_id: comment.json['comment_id'],
  });
  t.equal(await stored(n), before, 'the retries wrote nothing');
});

t.test('a retry naming its page by a title it no longer has answers its first outcome', async (t) => {
  const n = await startPagesNode(t);
  const id = await makePage(n, 'ENG', 'Old name');
  const rename = await n.call('PATCH', '/pages/ENG/Old%20name?op_id=r1', { body: { title: 'New name' } });
  t.equal(rename.status, 200);
  const again = await n.call('PATCH', '/pages/eng/old%20NAME?op_id=r1', { body: { title: 'New name' } });
  t.equal(again.status, 200, JSON.stringify(again.json));
  t.match(again.json, { repeated: true, page_id: id, version: 2 });
  const byNew = await n.call('PATCH', '/pages/ENG/New%20name?op_id=r1', { body: { title: 'New name' } });
  t.match(byNew.json, { repeated: true, page_id: id }, 'or by the title it has now');

  const del = await n.call('DELETE', '/pages/ENG/New%20name?op_id=d1');
  t.equal(del.status, 200);
  const delAgain = await n.call('DELETE', '/pages/ENG/New%20name?op_id=d1');
  t.equal(delAgain.status, 200, 'a delete retried by the title it removed');
  t.match(delAgain.json, { repeated: true, page_id: id, deleted: true });
});

t.test('a create retried after its parent was deleted answers its first outcome', async (t) => {
  const n = await startPagesNode(t);
  const parent = await makePage(n, 'ENG', 'Parent');
  const made = await n.call('POST', '/pages', {
    body: { container: 'ENG', title: 'Child', parent, op_id: 'c1' },
  });
  t.equal(made.status, 201);
  t.equal((await n.call('DELETE', `/pages/${made.json['page_id'] as string}`)).status, 200);
  t.equal((await n.call('DELETE', `/pages/${parent}`)).status, 200);
  const again = await n.call('POST', '/pages', {
    body: { container: 'ENG', title: 'Child', parent, op_id: 'c1' },
  });
  t.equal(again.status, 200, JSON.stringify(again.json));
  t.match(again.json, { repeated: true, page_id: made.json['page_id'] });
});

t.test('an op_id sent with a write naming another target is refused 409 op_id_reused', async (t) => {
  const n = await startPagesNode(t);
  const id = await makePage(n, 'HANDBOOK', 'Gone');
  const live = await makePage(n, 'ENG', 'Live');
  t.equal((await n.call('DELETE', `/pages/${id}?op_id=t4`)).status, 200);
  const before = await stored(n);
  const cases: Array<[string, string, unknown]> = [
    ['DELETE', '/pages/ENG/Does%20not%20exist?op_id=t4', undefined],
    ['DELETE', '/pages/no-such-id?op_id=t4', undefined],
    ['DELETE', `/pages/${live}?op_id=t4`, undefined],
    ['PATCH', '/pages/ENG/Does%20not%20exist?op_id=t4', { body: 'x' }],
    ['PATCH', `/pages/${id}?op_id=t4`, { body: 'x' }],
    ['POST', `/pages/${id}/comments?op_id=t4`, { body: 'x' }],
    ['POST', '/pages?op_id=t4', { container: 'ENG', title: 'New', parent: 'ENG/Does not exist' }],
  ];
  for (const [method, path, body] of cases) {
    const r = await n.call(method, path, { body });
    t.equal(r.status, 409, `${method} ${path}: ${JSON.stringify(r.json)}`);
    t.equal(r.json['error'], 'op_id_reused', `${method} ${path}`);
    t.notOk('page_id' in r.json, 'never answered with the first write’s page');
  }
  t.equal(await stored(n), before, 'nothing written');
  const fresh = await n.call('DELETE', '/pages/ENG/Does%20not%20exist?op_id=t5');
  t.equal(fresh.status, 404, 'an op_id never used still finds no page');
  t.equal((fresh.json as Json)['error'], 'not_found');
});
