/**
 * Conditional reads of the work and page routes that answer a version as `ETag` (ops/work-tracker.md
 * "Files", "Conditional reads"): a file read whose `If-None-Match` names the file's version answers 304
 * with no body and the `ETag`, as `/config` reads do; an item or a page, whose answer carries other items'
 * and pages' state under a version that only its own changes move, is answered in full whatever the header.
 */
import t from 'tap';
import { OPS, call } from './fixtures/gateway-harness.js';
import { startPagesNode } from './fixtures/pages-node.js';
import { startWorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const put = (url: string, body: string, headers: Record<string, string> = {}) =>
  call(url, {
    method: 'PUT',
    headers: { authorization: OPS, 'content-type': 'text/markdown', ...headers },
    body,
  });

t.test('a file read naming its version in If-None-Match answers 304 with the ETag and no body', async (t) => {
  const w = await startWorkHarness(t);
  const url = `${w.base}/work/files/ENG/docs/plan.md`;
  t.equal((await put(url, '# Plan\n')).status, 201);

  for (const tag of ['"1"', 'W/"1"', '"7", "1"', '*', ' "1" ']) {
    const r = await call(url, { headers: { 'if-none-match': tag } });
    t.equal(r.status, 304, `If-None-Match ${tag}`);
    t.equal(r.headers.get('etag'), '"1"', `${tag}: the ETag of what the client holds`);
    t.equal(r.text, '', `${tag}: no body`);
  }
  for (const tag of ['"2"', 'W/"01"', '"1', 'x'.repeat(9000)]) {
    const r = await call(url, { headers: { 'if-none-match': tag } });
    t.equal(r.status, 200, `If-None-Match ${tag.slice(0, 20)} names another version (or none): the bytes`);
    t.equal(r.text, '# Plan\n');
    t.equal(r.headers.get('etag'), '"1"');
  }

  // If-None-Match decides alone when sent (RFC 9110 13.2.2): If-Modified-Since beside it is not read,
  // whatever date it names; alone it is not either (a file answers no Last-Modified to compare with).
  const future = new Date(Date.now() + 86_400_000).toUTCString();
  const past = new Date(0).toUTCString();
  for (const [headers, status] of [
    [{ 'if-none-match': '"1"', 'if-modified-since': past }, 304],
    [{ 'if-none-match': '"7", W/"1"', 'if-modified-since': past }, 304],
    [{ 'if-none-match': '"2"', 'if-modified-since': future }, 200],
    [{ 'if-none-match': '"2", "3"', 'if-modified-since': future }, 200],
    [{ 'if-modified-since': future }, 200],
  ] as const) {
    const r = await call(url, { headers });
    t.equal(r.status, status, JSON.stringify(headers));
    t.equal(r.headers.get('last-modified'), null, 'no Last-Modified to hold a date against');
  }

  t.equal((await put(url, '# Plan v2\n', { 'if-match': '"1"' })).status, 200);
  const changed = await call(url, { headers: { 'if-none-match': '"1"' } });
  t.equal(changed.status, 200, 'a version the file has moved past reads the new bytes');
  t.equal(changed.text, '# Plan v2\n');
  t.equal(changed.headers.get('etag'), '"2"');

  // The client holds the bytes of that version: 304 needs none read, even when the store lost them.
  for (const key of await w.files.keys()) await w.files.delete(key);
  const held = await call(url, { headers: { 'if-none-match': '"2"' } });
  t.equal(held.status, 304, 'a held version is not read again');
  t.equal((await call(url)).status, 503, 'a read without it still says the bytes are unavailable');

  t.equal(
    (await call(`${w.base}/work/files/ENG/none.md`, { headers: { 'if-none-match': '*' } })).status,
    404,
    'no file: 404 whatever the header',
  );
});

t.test('an item is answered in full whatever If-None-Match names: its links show other items', async (t) => {
  const w = await startWorkHarness(t);
  const create = (body: Json) =>
    call(`${w.base}/work`, {
      method: 'POST',
      headers: { authorization: OPS, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'ENG', ...body }),
    });
  t.equal((await create({ title: 'Blocker' })).status, 201);
  t.equal((await create({ title: 'Blocked', links: [{ kind: 'blocked_by', item: 'ENG-1' }] })).status, 201);
  const first = await call(`${w.base}/work/ENG-2`);
  const tag = first.headers.get('etag')!;
  t.equal(tag, '"1"');

  const moved = await call(`${w.base}/work/ENG-1/move`, {
    method: 'POST',
    headers: { authorization: OPS, 'content-type': 'application/json' },
    body: JSON.stringify({ to: 'todo' }),
  });
  t.equal(moved.status, 200, moved.text);
  const again = await call(`${w.base}/work/ENG-2`, {
    headers: { 'if-none-match': `"9", ${tag}`, 'if-modified-since': new Date().toUTCString() },
  });
  t.equal(again.status, 200, 'not 304: the version is the same but the answer is not');
  t.equal(again.headers.get('etag'), tag, 'its own version did not move');
  t.match(again.json?.['links'], [{ key: 'ENG-1', status: 'todo' }], "the link shows the blocker's move");
});

t.test('a page is answered in full whatever If-None-Match names: its children are other pages', async (t) => {
  const n = await startPagesNode(t);
  const parent = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Guide' } });
  const id = parent.json['page_id'] as string;
  const first = await n.call('GET', `/pages/${id}`);
  const tag = first.headers.get('etag')!;
  t.equal(tag, '"1"');
  t.equal(
    (await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Setup', parent: id } })).status,
    201,
  );
  const again = await n.call('GET', `/pages/${id}`, { headers: { 'if-none-match': tag } });
  t.equal(again.status, 200, 'not 304: the version is the same but the answer is not');
  t.equal(again.headers.get('etag'), tag);
  t.match(again.json['children'], [{ title: 'Setup' }], 'the new child is shown');
});
