/**
 * A page comment honours `If-Match` and `If-None-Match` as `PATCH` and `DELETE` do (ops/knowledge-base.md
 * "Writes"): a precondition sent is never silently ignored. And every page write answers the `ETag` of the
 * page it leaves, so a client can chain writes without a read between them.
 */
import t from 'tap';
import { startPagesNode, type PagesNode } from './fixtures/pages-node.js';

const stored = async (n: PagesNode): Promise<number> => (await n.bus.streamInfo('SVC_PAGES')).messages;

t.test('a comment with a stale If-Match is refused 409 page_conflict and records nothing', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Talked about' } });
  const id = made.json['page_id'] as string;
  t.equal((await n.call('PATCH', `/pages/${id}`, { body: { body: 'v2' } })).json['version'], 2);
  const before = await stored(n);

  const stale = await n.call('POST', `/pages/${id}/comments`, {
    body: { body: 'on version 1' },
    headers: { 'if-match': '"1"' },
  });
  t.equal(stale.status, 409, JSON.stringify(stale.json));
  t.equal(stale.json['error'], 'page_conflict');
  t.match(stale.json['detail'], /version 2, not 1/);
  for (const tag of ['W/"2"', '*', 'nope']) {
    const bad = await n.call('POST', `/pages/${id}/comments`, {
      body: { body: 'x' },
      headers: { 'if-match': tag },
    });
    t.match(bad, { status: 400, json: { error: 'bad_params' } }, `If-Match ${tag} names no version`);
  }
  const exists = await n.call('POST', `/pages/${id}/comments`, {
    body: { body: 'x' },
    headers: { 'if-none-match': '*' },
  });
  t.match(
    exists,
    { status: 412, json: { error: 'entity_exists' } },
    'If-None-Match: * on a page that exists',
  );
  t.equal(await stored(n), before + 1, 'only the stale comment reached the log, refused there');
  t.same((await n.call('GET', `/pages/${id}`)).json['comments'], [], 'no comment was added');

  const current = await n.call('POST', `/pages/${id}/comments`, {
    body: { body: 'on version 2' },
    headers: { 'if-match': '"2"' },
  });
  t.equal(current.status, 201, 'the current version takes the comment');
  t.equal(current.headers.get('etag'), '"2"', 'a comment leaves the version as it was');
});

t.test('every page write answers the ETag of the page it leaves', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Chained' } });
  t.equal(made.headers.get('etag'), '"1"', 'a create');
  const id = made.json['page_id'] as string;
  const edit = await n.call('PATCH', `/pages/${id}`, {
    body: { body: 'v2' },
    headers: { 'if-match': made.headers.get('etag')! },
  });
  t.equal(edit.status, 200);
  t.equal(edit.headers.get('etag'), '"2"', 'an edit');
  const again = await n.call('PATCH', `/pages/${id}`, {
    body: { body: 'v3' },
    headers: { 'if-match': edit.headers.get('etag')! },
  });
  t.equal(again.headers.get('etag'), '"3"', 'the answer of one write is the precondition of the next');
  const gone = await n.call('DELETE', `/pages/${id}`, {
    headers: { 'if-match': again.headers.get('etag')! },
  });
  t.equal(gone.status, 200);
  t.equal(gone.headers.get('etag'), null, 'a deleted page has no version to name');
});
