/**
 * The knowledge base's edges: a PATCH naming nothing to change is refused before anything is recorded, one
 * whose values are already the page's answers the page unchanged (no new version), a container the chart
 * stopped declaring is listed with no kind, and a refusal never echoes a huge reference back whole.
 */
import t from 'tap';
import { startPagesNode, type PagesNode } from './fixtures/pages-node.js';

const stored = async (n: PagesNode): Promise<number> => (await n.bus.streamInfo('SVC_PAGES')).messages;

t.test('a PATCH naming nothing is 400 invalid_body; one repeating the page keeps its version', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Same', body: 'b' } });
  const id = made.json['page_id'] as string;
  const before = await stored(n);
  for (const body of [{}, { base_version: 1 }, { op_id: 'nothing-1' }]) {
    const r = await n.call('PATCH', `/pages/${id}`, { body });
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.json['error'], 'invalid_body');
    t.match(r.json['problems'], [{ path: '', message: /changes nothing/ }]);
  }
  t.equal(await stored(n), before, 'nothing recorded');
  const same = await n.call('PATCH', `/pages/${id}`, { body: { title: 'Same', body: 'b' } });
  t.equal(same.status, 200, 'the same values are an edit already made');
  t.equal(same.json['version'], 1, 'no new version');
  t.equal(((await n.call('GET', `/pages/${id}`)).json['revisions'] as unknown[]).length, 1);
});

t.test('a container the chart stopped declaring is listed with no kind and no unit', async (t) => {
  const n = await startPagesNode(t);
  t.equal((await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Kept' } })).status, 201);
  n.chart.document = {
    ...(n.chart.document as Record<string, unknown>),
    units: [{ name: 'Engineering', type: 'department', roles: [] }],
  };
  const rows = (await n.call('GET', '/containers')).json['containers'] as Array<Record<string, unknown>>;
  t.same(
    rows.find((c) => c['key'] === 'ENG'),
    { key: 'ENG', name: 'ENG', kind: null, unit: null, declared: false, pages: 1 },
    'not shown as an org-wide container',
  );
  t.equal(rows.find((c) => c['key'] === 'HANDBOOK')?.['kind'], 'org', 'a declared org container is');
});

t.test('a page reference thousands of characters long is 404 with a short detail', async (t) => {
  const n = await startPagesNode(t);
  const long = 'a'.repeat(5000);
  for (const [method, path, body] of [
    ['GET', `/pages/${long}`, undefined],
    ['GET', `/pages/ENG/${long}`, undefined],
    ['PATCH', `/pages/${long}`, { body: 'x' }],
    ['DELETE', `/pages/${long}`, undefined],
    ['POST', `/pages/${long}/comments`, { body: 'x' }],
    ['GET', `/pages?parent=${long}`, undefined],
  ] as const) {
    const r = await n.call(method, path, body === undefined ? {} : { body });
    t.equal(r.status, 404, `${method} ${path.slice(0, 24)}…`);
    t.equal(r.json['error'], 'not_found');
    t.ok(String(r.json['detail']).length < 400, 'the detail is cut');
  }
  const container = await n.call('GET', `/pages?container=${long}`);
  t.equal(container.json['error'], 'no_container');
  t.ok(String(container.json['detail']).length < 400, 'the detail is cut');
});

t.test('a page is created in a container named in any case, and its retry is the same gesture', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', {
    body: { container: 'eng', title: 'Lower', op_id: 'lower-1' },
  });
  t.equal(made.status, 201, JSON.stringify(made.json));
  t.equal((made.json['page'] as Record<string, unknown>)['container'], 'ENG', 'filed under the declared key');
  const again = await n.call('POST', '/pages', {
    body: { container: 'Eng', title: 'Lower', op_id: 'lower-1' },
  });
  t.equal(again.status, 200, 'a repeat creates nothing');
  t.equal(again.json['repeated'], true);
  t.equal((await n.call('GET', '/pages/ENG/lower')).status, 200);
});
