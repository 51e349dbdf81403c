import t from 'tap';
import { CI, OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const put = (url: string, body: string, headers: Record<string, string> = {}) =>
  call(url, {
    method: 'PUT',
    headers: { authorization: OPS, 'content-type': 'text/markdown', ...headers },
    body,
  });

t.test(
  'a file is written, read with its version as ETag, replaced only with If-Match, and deleted',
  async (t) => {
    const w = await startWorkHarness(t);
    const url = `${w.base}/work/files/ENG/docs/plan.md`;
    const first = await put(`${url}?op_id=f-1`, '# Plan\n');
    t.equal(first.status, 201);
    t.equal(first.headers.get('etag'), '"1"');
    t.equal((first.json?.file as Json).size, 7);
    const read = await call(url);
    t.equal(read.status, 200);
    t.equal(read.text, '# Plan\n');
    t.equal(read.headers.get('content-type'), 'text/markdown');
    t.equal(read.headers.get('etag'), '"1"');
    const retry = await put(`${url}?op_id=f-1`, '# Plan\n');
    t.equal(retry.json?.outcome, 'repeated', 'a retried write answers its first outcome');

    const blind = await put(url, 'overwrite');
    t.equal(blind.status, 409, 'replacing without If-Match is refused');
    t.equal(blind.json?.error, 'revision_advanced');
    const stale = await put(url, 'overwrite', { 'if-match': '"7"' });
    t.equal(stale.json?.error, 'revision_advanced');
    t.match(
      stale.json?.['hint'],
      /version in `ETag`/,
      'the hint speaks of file versions, not config revisions',
    );
    const second = await put(url, 'x'.repeat(600_000), { 'if-match': '"1"' });
    t.equal(second.status, 200);
    t.equal(second.headers.get('etag'), '"2"');
    t.equal((await call(url)).text.length, 600_000, 'a file larger than one chunk reads back whole');
    const absent = await put(`${w.base}/work/files/ENG/new.md`, 'x', { 'if-match': '"1"' });
    // RFC 9110 13.1.1: an If-Match list matches no current representation when there is none.
    t.equal(absent.status, 412, 'If-Match on a file that does not exist');
    t.equal(absent.json?.error, 'precondition_failed', 'If-Match on a file that does not exist');
    const gone = await call(`${w.base}/work/files/ENG/new.md`, {
      method: 'DELETE',
      headers: { authorization: OPS, 'if-match': '"1"' },
    });
    t.equal(gone.status, 412, 'a DELETE with If-Match of a file that does not exist');
    t.equal((await put(`${w.base}/work/files/ENG/a//b%20c`, 'x')).status, 400, 'a path outside the grammar');
    t.equal((await put(url, 'y', { authorization: '' })).status, 401, 'writes need a token');

    const list = await call(`${w.base}/work/files?project=ENG`);
    t.same(
      (list.json?.files as Json[]).map((f) => [f.path, f.version]),
      [['docs/plan.md', 2]],
    );
    const del = await call(url, { method: 'DELETE', headers: { authorization: CI, 'if-match': '"2"' } });
    t.equal(del.status, 200);
    t.equal((await call(url)).status, 404);
    t.same((await call(`${w.base}/work/files?project=ENG`)).json?.files, [], 'removed files are not listed');
    const withRemoved = await call(`${w.base}/work/files?project=ENG&removed=true`);
    t.same(
      (withRemoved.json?.files as Json[]).map((f) => [f.path, f.removed, f.version]),
      [['docs/plan.md', true, 3]],
    );
    const again = await put(url, 'back');
    t.equal(again.headers.get('etag'), '"4"', 'versions keep counting after a delete');
  },
);

t.test('listing: project required, unknown 404 no_project, folder, after and limit', async (t) => {
  const w = await startWorkHarness(t);
  for (const p of ['a.md', 'docs/b.md', 'docs/c.md', 'docs/deep/d.md', 'img/e.png'])
    await put(`${w.base}/work/files/ENG/${p}`, p);
  t.equal((await call(`${w.base}/work/files`)).json?.error, 'bad_params');
  const unknown = await call(`${w.base}/work/files?project=NOPE`);
  t.equal(unknown.status, 404);
  t.equal(unknown.json?.error, 'no_project');
  t.equal((await call(`${w.base}/work/files/NOPE/a.md`)).json?.error, 'no_project');
  const docs = await call(`${w.base}/work/files?project=ENG&folder=docs`);
  t.same(
    (docs.json?.files as Json[]).map((f) => f.path),
    ['docs/b.md', 'docs/c.md', 'docs/deep/d.md'],
  );
  const page = await call(`${w.base}/work/files?project=ENG&limit=2`);
  t.same(
    (page.json?.files as Json[]).map((f) => f.path),
    ['a.md', 'docs/b.md'],
  );
  const rest = await call(`${w.base}/work/files?project=ENG&after=${String(page.json?.next)}`);
  t.same(
    (rest.json?.files as Json[]).map((f) => f.path),
    ['docs/c.md', 'docs/deep/d.md', 'img/e.png'],
  );
  t.equal(rest.json?.next, null);
  t.equal((await call(`${w.base}/work/files?project=ENG&limit=1001`)).json?.error, 'bad_params');
  t.equal((await call(`${w.base}/work/files?project=ENG&limit=1000`)).status, 200);
  const long = await call(`${w.base}/work/files/ENG/${'p'.repeat(5000)}`);
  t.equal(long.status, 404);
  t.equal(long.json?.error, 'not_found');
  t.ok(String(long.json?.detail).length < 200, 'the detail quotes the path cut, not 5,000 characters');
});

t.test('a listed file whose bytes cannot be read answers 503 content_unavailable', async (t) => {
  const w = await startWorkHarness(t);
  await put(`${w.base}/work/files/ENG/lost.txt`, 'soon gone');
  for (const key of await w.files.keys()) await w.files.delete(key);
  const r = await call(`${w.base}/work/files/ENG/lost.txt`);
  t.equal(r.status, 503);
  t.equal(r.json?.error, 'content_unavailable');
  t.same(
    ((await call(`${w.base}/work/files?project=ENG`)).json?.files as Json[]).map((f) => f.path),
    ['lost.txt'],
    'still listed',
  );
});

t.test(
  'a listing shows 200 files unless asked for more; a write refuses an op_id over 128 bytes',
  async (t) => {
    const w = await startWorkHarness(t);
    for (let i = 0; i < 201; i++)
      await put(`${w.base}/work/files/ENG/f${String(i).padStart(3, '0')}.md`, 'x');
    const page = await call(`${w.base}/work/files?project=ENG`);
    t.equal((page.json?.files as Json[]).length, 200, 'default 200');
    t.equal(page.json?.next, 'f199.md');
    t.equal(((await call(`${w.base}/work/files?project=ENG&limit=201`)).json?.files as Json[]).length, 201);
    const long = await put(`${w.base}/work/files/ENG/g.md?op_id=${'o'.repeat(129)}`, 'x');
    t.equal(long.status, 400);
    t.equal(long.json?.error, 'op_id_invalid');
    t.equal((await call(`${w.base}/work/files/ENG/g.md`)).status, 404, 'nothing written');
    t.equal((await put(`${w.base}/work/files/ENG/g.md?op_id=${'o'.repeat(128)}`, 'x')).status, 201);
  },
);
