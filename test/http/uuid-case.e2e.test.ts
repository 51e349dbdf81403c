/**
 * Ids of pages, work items and saved views are UUIDs, and a UUID's hex digits carry no case (RFC 9562 4):
 * an id given in upper case names the same thing as in lower case, on every route that reads one, rather
 * than answering 404.
 */
import t from 'tap';
import { OPS, call } from './fixtures/gateway-harness.js';
import { startPagesNode } from './fixtures/pages-node.js';
import { startWorkHarness } from './fixtures/work-harness.js';

const send = (url: string, body: unknown, method = 'POST') =>
  call(url, {
    method,
    headers: { authorization: OPS, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

t.test('a page id in upper case names the page on every page route', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Parent' } });
  const id = made.json['page_id'] as string;
  t.match(id, /^[0-9a-f-]{36}$/, 'minted in lower case');
  const upper = id.toUpperCase();
  const read = await n.call('GET', `/pages/${upper}`);
  t.equal(read.status, 200, 'GET');
  t.equal(read.json['id'], id, 'the page answers with its id as minted');
  const child = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Child', parent: upper } });
  t.equal(child.status, 201, 'a parent named in upper case');
  const listed = await n.call('GET', `/pages?parent=${upper}`);
  t.equal(listed.status, 200, 'the parent filter');
  t.equal(listed.json['total'], 1);
  const patched = await n.call('PATCH', `/pages/${upper}`, { body: { body: 'more', op_id: 'u-1' } });
  t.equal(patched.status, 200, 'PATCH');
  const again = await n.call('PATCH', `/pages/${id}`, { body: { body: 'more', op_id: 'u-1' } });
  t.equal(again.json['repeated'], true, 'a retry naming the id in the other case is the same gesture');
  const commented = await n.call('POST', `/pages/${upper}/comments`, { body: { body: 'hi' } });
  t.equal(commented.status, 201, 'comment');
  const childId = child.json['page_id'] as string;
  const deleted = await n.call('DELETE', `/pages/${childId.toUpperCase()}`);
  t.equal(deleted.status, 200, 'DELETE');
  t.equal(deleted.json['page_id'], childId);
});

t.test('a work item id and a saved view id in upper case name them', async (t) => {
  const w = await startWorkHarness(t);
  const made = await send(`${w.base}/work`, { project: 'ENG', title: 'First' });
  const id = (made.json?.['item'] as { id: string }).id;
  t.match(id, /^[0-9a-f-]{36}$/);
  const upper = id.toUpperCase();
  const read = await call(`${w.base}/work/${upper}`);
  t.equal(read.status, 200, 'GET /work/{id}');
  t.equal(read.json?.['key'], 'ENG-1');
  const renamedItem = await send(`${w.base}/work/${upper}`, { title: 'Renamed' }, 'PATCH');
  t.equal(renamedItem.status, 200, `PATCH ${JSON.stringify(renamedItem.json)}`);
  const tagged = await call(`${w.base}/work/${upper}`, {
    method: 'PATCH',
    headers: { authorization: OPS, 'content-type': 'application/json', 'if-match': '"2"' },
    body: JSON.stringify({ title: 'Again' }),
  });
  t.equal(tagged.status, 200, 'If-Match judged against the item the upper-case id names');
  t.equal((await send(`${w.base}/work/${upper}/comments`, { body: 'x' })).status, 201, 'comment');
  t.equal((await call(`${w.base}/work/comments?item=${upper}`)).status, 200, '?item=');
  t.equal((await call(`${w.base}/work/turns?id=${upper}`)).status, 200, '?id=');
  t.equal((await call(`${w.base}/work/activity?task=${upper}`)).status, 200, '?task=');
  const saved = await send(`${w.base}/work/views/saved`, { name: 'Mine', filter: { project: 'ENG' } });
  const view = (saved.json?.['view'] as { id: string }).id;
  const renamed = await send(`${w.base}/work/views/saved/${view.toUpperCase()}`, { name: 'Ours' }, 'PATCH');
  t.equal(renamed.status, 200, 'a saved view by its id in upper case');
  const pinned = await send(`${w.base}/work/views/pinned`, { view: view.toUpperCase() });
  t.equal(pinned.status, 200, 'pinned by its id in upper case');
  const unpinned = await call(`${w.base}/work/views/pinned/${view.toUpperCase()}`, {
    method: 'DELETE',
    headers: { authorization: OPS },
  });
  t.equal(unpinned.status, 200, 'unpinned by its id in upper case');
});
