/**
 * The page tree on a served node (ops/knowledge-base.md "Writes"): `parent` names the top of the
 * container as `null` or `root` (the word `GET /pages?parent=` and the page tools take), two pages moved
 * under each other at once leave no cycle (the log decides: one move wins, the other is 409
 * `page_parent_invalid`), and a parent in another container is refused the same way.
 */
import t, { type Test } from 'tap';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { bootNode, storeDir, type BootedNode } from '../harness/serve-store.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;

async function send(node: BootedNode, method: string, path: string, body?: Json) {
  const res = await node.call(method, path, {
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headers: { 'content-type': 'application/json' },
  });
  return { status: res.status, json: (await res.json()) as Json };
}

async function servedNode(t: Test): Promise<BootedNode> {
  const node = await bootNode(t, storeDir(t), nativeBackends);
  await applyNativeWork(
    t,
    [node.url],
    { ...nativeWorkCompany(), knowledge: { wiki_spaces: ['DOCS'] } },
    'tree',
  );
  await until(
    async () => (await node.call('GET', '/containers')).text(),
    (c) => c.includes('"ENG"') && c.includes('"DOCS"'),
  );
  return node;
}

const pageOf = (r: { json: Json }): Json => r.json['page'] as Json;

t.test('parent root places a page at the top of its container, on a create and a move', async (t) => {
  const node = await servedNode(t);
  const top = await send(node, 'POST', '/pages', { container: 'ENG', title: 'Top', parent: 'root' });
  t.equal(top.status, 201, JSON.stringify(top.json));
  t.equal(pageOf(top)['parent_id'], null, 'created at the top');
  const child = await send(node, 'POST', '/pages', { container: 'ENG', title: 'Child', parent: 'ENG/Top' });
  t.equal(pageOf(child)['parent_id'], top.json['page_id']);
  const moved = await send(node, 'PATCH', '/pages/ENG/Child', { parent: 'root' });
  t.equal(moved.status, 200, JSON.stringify(moved.json));
  t.equal(pageOf(moved)['parent_id'], null, 'moved to the top');
  t.equal(moved.json['version'], 2);
  t.same((pageOf(moved)['revisions'] as Json[])[0]?.['changed'], ['parent']);
  const again = await send(node, 'PATCH', '/pages/ENG/Child', { parent: null });
  t.equal(again.json['version'], 2, 'null names the same place: no new revision');
  const roots = await send(node, 'GET', '/pages?container=ENG&parent=root');
  t.same(
    (roots.json['pages'] as Json[]).map((p) => p['title']),
    ['Child', 'Top'],
  );
});

t.test('two pages moved under each other at once: one move wins, no cycle', async (t) => {
  const node = await servedNode(t);
  for (let i = 0; i < 4; i += 1) {
    await send(node, 'POST', '/pages', { container: 'ENG', title: `X${i}` });
    await send(node, 'POST', '/pages', { container: 'ENG', title: `Y${i}` });
    const [xy, yx] = await Promise.all([
      send(node, 'PATCH', `/pages/ENG/X${i}`, { parent: `ENG/Y${i}` }),
      send(node, 'PATCH', `/pages/ENG/Y${i}`, { parent: `ENG/X${i}` }),
    ]);
    t.same([xy.status, yx.status].sort(), [200, 409], `round ${i}: one wins`);
    const loser = xy.status === 409 ? xy : yx;
    t.equal(loser.json['error'], 'page_parent_invalid');
    const x = await send(node, 'GET', `/pages/ENG/X${i}`);
    const y = await send(node, 'GET', `/pages/ENG/Y${i}`);
    t.ok(x.json['parent_id'] === null || y.json['parent_id'] === null, 'one of them stays at the top');
  }
});

t.test('a parent in another container is refused 409 page_parent_invalid', async (t) => {
  const node = await servedNode(t);
  await send(node, 'POST', '/pages', { container: 'DOCS', title: 'Elsewhere' });
  const page = await send(node, 'POST', '/pages', { container: 'ENG', title: 'Here' });
  const made = await send(node, 'POST', '/pages', {
    container: 'ENG',
    title: 'New',
    parent: 'docs/elsewhere',
  });
  t.equal(made.status, 409);
  t.equal(made.json['error'], 'page_parent_invalid');
  const moved = await send(node, 'PATCH', '/pages/ENG/Here', { parent: 'DOCS/Elsewhere' });
  t.equal(moved.status, 409);
  t.equal(moved.json['error'], 'page_parent_invalid');
  t.equal((await send(node, 'GET', '/pages/ENG/Here')).json['version'], pageOf(page)['version'], 'unchanged');
});
