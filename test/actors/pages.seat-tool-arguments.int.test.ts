import t, { type Test } from 'tap';
import { serviceBuiltins } from '../../actors/index.js';
import { startPagesNode } from '../http/fixtures/pages-node.js';

// ops/knowledge-base.md "Search": `pages_search` answers the same rows `GET /pages` answers, and its
// `container` is a key named in any case as on the routes (ops/operator.md "Catalogue").
async function seatTools(t: Test) {
  const n = await startPagesNode(t);
  const tools = new Map(serviceBuiltins(n.knowledge.tools).map((tool) => [tool.entry.name, tool]));
  let call = 0;
  const ctx = () => ({
    seat: 'builder',
    agent_id: '00000000-0000-5000-8000-000000000001',
    call_id: `turn-9:0:0:${call++}`,
  });
  const use = (name: string, args: Record<string, unknown>) => tools.get(name)!.call(ctx(), args);
  return { n, use };
}

t.test('pages_search names a container in any case, as GET /pages does', async (t) => {
  const { n, use } = await seatTools(t);
  t.equal((await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Runbook' } })).status, 201);
  const route = await n.call('GET', '/pages?container=eng');
  t.equal((route.json['pages'] as unknown[]).length, 1, 'the route reads `eng` as ENG');
  for (const container of ['eng', 'Eng']) {
    const found = await use('pages_search', { container });
    t.equal(found.is_error, false, JSON.stringify(found.content));
    t.match(found.content[0]!.text, /Runbook/, `${container} names ENG`);
  }
  const byWords = await use('pages_search', { container: 'eng', q: 'runbook' });
  t.match(byWords.content[0]!.text, /Runbook/, 'a search too');
});

t.test('pages_search with a container no chart declares is refused no_container', async (t) => {
  const { use } = await seatTools(t);
  const found = await use('pages_search', { container: 'NOPE' });
  t.equal(found.is_error, true, 'not an empty list, which reads as a container without pages');
  t.match(found.content[0]!.text, /^Refused \(no_container\): /);
});

t.test('pages_search with a q holding no word is refused bad_params, as GET /pages does', async (t) => {
  const { n, use } = await seatTools(t);
  await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Runbook' } });
  for (const q of ['', '   ', '!!!']) {
    const found = await use('pages_search', { q });
    t.equal(found.is_error, true, `q ${JSON.stringify(q)}: ${found.content[0]!.text.slice(0, 80)}`);
    t.match(found.content[0]!.text, /^Refused \(bad_params\): /);
  }
});

t.test(
  'pages_write on a page naming nothing to change is refused, as a PATCH naming nothing is',
  async (t) => {
    const { n, use } = await seatTools(t);
    await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Runbook' } });
    const none = await use('pages_write', { page: 'ENG/Runbook' });
    t.equal(none.is_error, true);
    t.match(none.content[0]!.text, /^Refused \(bad_params\): .*changes nothing/);
  },
);

t.test('pages_write on a page with a container is refused: a page does not change container', async (t) => {
  const { n, use } = await seatTools(t);
  await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Runbook' } });
  const moved = await use('pages_write', { page: 'ENG/Runbook', container: 'SALES', body: 'x' });
  t.equal(moved.is_error, true, 'not taken as an edit in place that reads as a move');
  t.match(moved.content[0]!.text, /^Refused \(bad_params\): /);
  const page = await n.call('GET', '/pages/ENG/Runbook');
  t.equal(page.json['version'], 1, 'nothing written');
});

t.test(
  'pages_write creating a page with a base_version is refused, as POST /pages refuses the field',
  async (t) => {
    const { n, use } = await seatTools(t);
    const route = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'A', base_version: 3 } });
    t.equal(route.json['error'], 'invalid_body', 'the route has no such field on a create');
    const made = await use('pages_write', { container: 'ENG', title: 'Runbook', base_version: 3 });
    t.equal(made.is_error, true, 'not a create that drops the precondition');
    t.match(made.content[0]!.text, /^Refused \(bad_params\): /);
    t.equal((await n.call('GET', '/pages/ENG/Runbook')).status, 404, 'nothing written');
  },
);
