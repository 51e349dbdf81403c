/**
 * `pages_search` pages as `GET /pages` does (ops/knowledge-base.md "Search"): its answer is the route's,
 * `{pages, total, next_cursor, order}`, and `cursor` (a previous answer's `next_cursor`, with the same
 * `q`, `container` and `parent`) reads on; a cursor of another list is refused `bad_params`. The two
 * read one list, so a cursor either gave pages the other.
 */
import t, { type Test } from 'tap';
import { serviceBuiltins } from '../../actors/index.js';
import { startPagesNode } from '../http/fixtures/pages-node.js';

interface Answer {
  pages: Array<{ title: string }>;
  total: number | null;
  next_cursor: string | null;
  order: string;
}

async function seatTools(t: Test) {
  const n = await startPagesNode(t);
  const tools = new Map(serviceBuiltins(n.knowledge.tools).map((tool) => [tool.entry.name, tool]));
  let call = 0;
  const ctx = () => ({
    seat: 'builder',
    agent_id: '00000000-0000-5000-8000-000000000001',
    call_id: `turn-7:0:0:${call++}`,
  });
  const search = async (args: Record<string, unknown>) => {
    const r = await tools.get('pages_search')!.call(ctx(), args);
    return { error: r.is_error, text: r.content[0]!.text };
  };
  for (const title of ['Alpha runbook', 'Bravo runbook', 'Charlie runbook', 'Delta runbook', 'Echo runbook'])
    await n.call('POST', '/pages', { body: { container: 'ENG', title, body: 'runbook steps' } });
  await n.call('POST', '/pages', { body: { container: 'SALES', title: 'Pricing runbook' } });
  return { n, search };
}

t.test('pages_search pages a listing with cursor and next_cursor, as GET /pages does', async (t) => {
  const { n, search } = await seatTools(t);
  const seen: string[] = [];
  let cursor: string | null = null;
  let calls = 0;
  do {
    const r = await search({ container: 'eng', limit: 2, ...(cursor === null ? {} : { cursor }) });
    t.equal(r.error, false, r.text);
    const answer = JSON.parse(r.text) as Answer;
    t.equal(answer.order, 'title');
    t.equal(answer.total, 5, 'total counts every match');
    seen.push(...answer.pages.map((p) => p.title));
    cursor = answer.next_cursor;
    calls++;
  } while (cursor !== null && calls < 10);
  t.equal(calls, 3, 'two, two, then one');
  const route = await n.call('GET', '/pages?container=ENG&limit=50');
  t.same(
    seen,
    (route.json['pages'] as Array<{ title: string }>).map((p) => p.title),
    'every page once, in the route order',
  );
  const first = await n.call('GET', '/pages?container=ENG&limit=2');
  const fromRoute = first.json['next_cursor'] as string;
  const onward = JSON.parse((await search({ container: 'ENG', limit: 2, cursor: fromRoute })).text) as Answer;
  t.same(
    onward.pages.map((p) => p.title),
    ['Charlie runbook', 'Delta runbook'],
    "the route's cursor reads on in the tool",
  );
});

t.test('pages_search pages a search by words with its cursor', async (t) => {
  const { search } = await seatTools(t);
  const one = JSON.parse((await search({ q: 'runbook', limit: 4 })).text) as Answer;
  t.equal(one.order, 'relevance');
  t.equal(one.pages.length, 4);
  t.type(one.next_cursor, 'string');
  const two = JSON.parse((await search({ q: 'runbook', limit: 4, cursor: one.next_cursor })).text) as Answer;
  t.equal(two.pages.length, 2, 'the rest of six hits');
  t.equal(two.next_cursor, null);
  const all = [...one.pages, ...two.pages].map((p) => p.title);
  t.equal(new Set(all).size, 6, 'no hit twice');
});

t.test('pages_search refuses a cursor of another list bad_params', async (t) => {
  const { search } = await seatTools(t);
  const one = JSON.parse((await search({ container: 'ENG', limit: 2 })).text) as Answer;
  const cases: Array<[string, Record<string, unknown>]> = [
    ['another container', { container: 'SALES', cursor: one.next_cursor }],
    ['a search', { q: 'runbook', cursor: one.next_cursor }],
    ['altered', { container: 'ENG', cursor: `${one.next_cursor!.slice(0, -2)}AA` }],
    ['not a cursor', { container: 'ENG', cursor: 'nonsense' }],
  ];
  for (const [why, args] of cases) {
    const r = await search(args);
    t.equal(r.error, true, why);
    t.match(r.text, /^Refused \(bad_params\): `cursor`/, why);
  }
});
