/**
 * `GET /pages` pages by keyset, in title order and in a search: a cursor names the last row shown, so
 * pages created, renamed or deleted between two reads never make a page repeat or skip one, and a cursor
 * that is not this list's own is refused.
 */
import t from 'tap';
import { startPagesNode, type PagesNode } from './fixtures/pages-node.js';

type Json = Record<string, unknown>;

async function create(n: PagesNode, title: string, body = `about ${title}`): Promise<string> {
  const r = await n.call('POST', '/pages', { body: { container: 'HANDBOOK', title, body } });
  return r.json['page_id'] as string;
}

async function page(n: PagesNode, path: string, cursor: string | null) {
  const r = await n.call('GET', cursor === null ? path : `${path}&cursor=${encodeURIComponent(cursor)}`);
  return {
    titles: (r.json['pages'] as Json[]).map((p) => p['title'] as string),
    next: r.json['next_cursor'] as string | null,
  };
}

t.test(
  'title order: a page created or deleted between page reads neither repeats nor skips one',
  async (t) => {
    const n = await startPagesNode(t);
    const ids: Record<string, string> = {};
    for (const title of ['Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot', 'Golf'])
      ids[title] = await create(n, title);
    const path = '/pages?container=HANDBOOK&limit=2';
    const first = await page(n, path, null);
    t.same(first.titles, ['Bravo', 'Charlie']);
    await create(n, 'Alpha');
    const second = await page(n, path, first.next);
    t.same(second.titles, ['Delta', 'Echo'], 'a page sorting first does not push Charlie back in');
    await n.call('DELETE', `/pages/${ids['Echo']}`);
    await n.call('DELETE', `/pages/${ids['Foxtrot']}`);
    const third = await page(n, path, second.next);
    t.same(third.titles, ['Golf'], 'deleting the cursor row and one after it skips nothing');
    t.equal(third.next, null);
  },
);

t.test('search: a page written between page reads repeats and skips none of the others', async (t) => {
  const n = await startPagesNode(t);
  // One word, so each hit's rank against the others holds while the corpus grows.
  for (let i = 1; i <= 6; i++) await create(n, `Runbook ${i}`, `deploy ${'step '.repeat(i)}`);
  const path = '/pages?q=deploy&limit=2';
  const all = await page(n, '/pages?q=deploy&limit=50', null);
  t.equal(all.titles.length, 6);
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let round = 0; round < 10; round++) {
    const p = await page(n, path, cursor);
    seen.push(...p.titles);
    cursor = p.next;
    if (cursor === null) break;
    // Each write changes every score (BM25 counts the pages holding the word): the cursor still holds.
    await create(n, `Unrelated ${round}`, 'deploy '.repeat(40) + 'x '.repeat(round * 7));
  }
  t.same(
    seen.filter((title) => title.startsWith('Runbook')),
    all.titles,
    'every runbook once, in the order of the first ranking',
  );
  t.equal(new Set(seen).size, seen.length, 'no hit twice');
});

t.test('a cursor that is not this list own answers 400 bad_params naming it', async (t) => {
  const n = await startPagesNode(t);
  for (const title of ['One', 'Two', 'Three']) await create(n, title, 'deploy words');
  const listed = await page(n, '/pages?container=HANDBOOK&limit=1', null);
  const searched = await page(n, '/pages?q=deploy&limit=1', null);
  t.type(listed.next, 'string');
  t.type(searched.next, 'string');
  const refused = async (path: string, why: string) => {
    const r = await n.call('GET', path);
    t.equal(r.status, 400, why);
    t.equal(r.json['error'], 'bad_params', why);
    t.match(r.json['detail'], /`cursor`/, why);
  };
  for (const bad of ['2', '1e3', '%202', '2.0', '-1', 'eyJvIjoxfQ', `${listed.next}A`])
    await refused(`/pages?container=HANDBOOK&cursor=${bad}`, `cursor=${bad}`);
  await refused(`/pages?container=HANDBOOK&cursor=${searched.next}`, 'a search cursor in title order');
  await refused(`/pages?q=deploy&cursor=${listed.next}`, 'a title cursor in a search');
  await refused(`/pages?q=words&cursor=${searched.next}`, 'a search cursor with other words');
});

t.test('a cursor of another container, altered or made by hand is refused 400 naming cursor', async (t) => {
  const n = await startPagesNode(t);
  for (const title of ['Alpha', 'Bravo', 'Charlie']) await create(n, title);
  const first = await page(n, '/pages?container=HANDBOOK&limit=1', null);
  t.type(first.next, 'string');
  const [token] = first.next!.split('.');
  const body = JSON.parse(Buffer.from(token!, 'base64url').toString()) as Json;
  const altered = Buffer.from(JSON.stringify({ ...body, id: 'another-page' })).toString('base64url');
  const forged = Buffer.from(JSON.stringify({ o: 'pages.title', k: ['HANDBOOK', 'b'], id: 'x' })).toString(
    'base64url',
  );
  for (const [path, why] of [
    [`/pages?limit=1&cursor=${first.next}`, 'the same cursor without its container filter'],
    [`/pages?container=HANDBOOK&parent=root&limit=1&cursor=${first.next}`, 'with a parent filter added'],
    [`/pages?container=HANDBOOK&limit=1&cursor=${altered}.${first.next!.split('.')[1]}`, 'altered'],
    [`/pages?container=HANDBOOK&limit=1&cursor=${forged}`, 'made by hand'],
  ] as const) {
    const r = await n.call('GET', path);
    t.equal(r.status, 400, why);
    t.equal(r.json['error'], 'bad_params', why);
    t.match(r.json['detail'], /`cursor`/, why);
  }
  const again = await n.call('GET', `/pages?container=handbook&limit=1&cursor=${first.next}`);
  t.equal(again.status, 200, 'the same container named in another case is the same list');
});
