/**
 * A page is named in a path as `CONTAINER/Title` (ops/knowledge-base.md "Reads"). A title of `.` or `..`
 * is a dot segment, which every URL parser removes before the request is sent (WHATWG URL, RFC 3986
 * 5.2.4; `%2E` too), so no client could name such a page by its title: it is refused 400 `invalid_body`
 * with a problem at `title`, on a create, a rename and the page tools alike. Titles with a `/` stay
 * addressable and are kept.
 */
import t from 'tap';
import { startPagesNode } from './fixtures/pages-node.js';

type Problem = { path: string; message: string };

t.test('a page title of . or .. is refused 400 invalid_body at title, on create and rename', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Plain' } });
  const id = made.json['page_id'] as string;
  for (const title of ['.', '..', ' .. ']) {
    const created = await n.call('POST', '/pages', { body: { container: 'ENG', title } });
    t.equal(created.status, 400, `create ${JSON.stringify(title)}`);
    t.equal(created.json['error'], 'invalid_body');
    const problems = created.json['problems'] as Problem[];
    t.same(
      problems.map((p) => p.path),
      ['title'],
      'the problem names the title',
    );
    t.match(problems[0]?.message, /dot segment/);
    const renamed = await n.call('PATCH', `/pages/${id}`, { body: { title } });
    t.equal(renamed.status, 400, `rename to ${JSON.stringify(title)}`);
    t.equal(renamed.json['error'], 'invalid_body');
  }
  const list = await n.call('GET', '/pages?container=ENG');
  t.equal(list.json['total'], 1, 'nothing was created');
});

t.test('titles that only look like paths are kept and named by CONTAINER/Title', async (t) => {
  const n = await startPagesNode(t);
  for (const title of ['...', '.hidden', 'a/b', 'x/..', 'Q&A?', '100%']) {
    const made = await n.call('POST', '/pages', { body: { container: 'ENG', title } });
    t.equal(made.status, 201, `create ${title}`);
    // The title as one segment: a `/` in it is `%2F`, so `x/..` is no dot segment.
    const path = `/pages/ENG/${encodeURIComponent(title)}`;
    const read = await n.call('GET', path);
    t.equal(read.status, 200, `read ${path}`);
    t.equal(read.json['title'], title);
  }
  t.equal((await n.call('GET', '/pages/ENG/a/b')).status, 200, 'a `/` in a title may also stand as it is');
});

t.test('the page tools refuse a title of . or ..', async (t) => {
  const n = await startPagesNode(t);
  const tool = n.knowledge.tools.find((x) => x.name === 'pages_write');
  t.ok(tool, 'pages_write is served');
  const parsed = tool!.args.safeParse({ container: 'ENG', title: '..', body: '' });
  t.notOk(parsed.success, 'the arguments do not fit');
});
