import t from 'tap';
import { startPagesNode } from './fixtures/pages-node.js';

type Json = Record<string, unknown>;

t.test('a create retried with its op_id answers the first outcome and writes once', async (t) => {
  const n = await startPagesNode(t);
  const body = { container: 'ENG', title: 'Once', body: 'b', op_id: 'retry-1' };
  const first = await n.call('POST', '/pages', { body });
  const again = await n.call('POST', '/pages', { body });
  t.equal(first.status, 201);
  t.equal(again.status, 200, 'a retry creates nothing: 200, as a repeated work create');
  t.equal(first.json['repeated'], false);
  t.equal(again.json['repeated'], true);
  t.equal(again.json['page_id'], first.json['page_id']);
  t.equal(again.json['op_id'], 'retry-1');
  const list = await n.call('GET', '/pages?container=ENG');
  t.equal(list.json['total'], 1, 'one page, not two');
  const info = await n.bus.streamInfo('SVC_PAGES');
  t.equal(info.messages, 1, 'the retry stored nothing');
});

t.test('comment, update and delete retried by op_id act once', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Page' } });
  const id = made.json['page_id'] as string;
  const said = [];
  for (let i = 0; i < 2; i++)
    said.push(await n.call('POST', `/pages/${id}/comments?op_id=c-1`, { body: { body: 'hi' } }));
  t.same(
    said.map((r) => r.status),
    [201, 200],
    'the retried comment adds nothing: 200',
  );
  for (let i = 0; i < 2; i++) await n.call('PATCH', `/pages/${id}`, { body: { body: 'more', op_id: 'u-1' } });
  const page = await n.call('GET', `/pages/${id}`);
  t.equal((page.json['comments'] as Json[]).length, 1, 'one comment');
  t.equal(page.json['version'], 2, 'one update');
  const del1 = await n.call('DELETE', `/pages/${id}?op_id=d-1`);
  const del2 = await n.call('DELETE', `/pages/${id}?op_id=d-1`);
  t.equal(del1.status, 200);
  t.equal(del2.status, 200, 'a retried delete answers its first outcome');
  t.equal(del2.json['repeated'], true);
  const other = await n.call('DELETE', `/pages/${id}?op_id=d-2`);
  t.equal(other.status, 404, 'a new delete of a deleted page finds none');
});

t.test('a refused write retried with its op_id is refused the same way', async (t) => {
  const n = await startPagesNode(t);
  const holder = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Taken' } });
  const refused = await n.call('POST', '/pages', {
    body: { container: 'ENG', title: 'taken', op_id: 'x-1' },
  });
  t.equal(refused.json['error'], 'page_title_taken');
  await n.call('DELETE', `/pages/${holder.json['page_id'] as string}`);
  const retried = await n.call('POST', '/pages', {
    body: { container: 'ENG', title: 'taken', op_id: 'x-1' },
  });
  t.equal(retried.json['error'], 'page_title_taken', 'the op_id keeps its first outcome');
  const fresh = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'taken', op_id: 'x-2' } });
  t.equal(fresh.status, 201, 'a new op_id acts anew');
});

t.test('an op_id outside the grammar is 400 op_id_invalid, before anything is written', async (t) => {
  const n = await startPagesNode(t);
  const cases: Array<[string, unknown, string]> = [
    ['/pages', { container: 'ENG', title: 'a', op_id: 'x'.repeat(129) }, 'over 128 bytes'],
    ['/pages', { container: 'ENG', title: 'a', op_id: 'has space' }, 'a space'],
    ['/pages', { container: 'ENG', title: 'a', op_id: 'é' }, 'not ASCII'],
    ['/pages', { container: 'ENG', title: 'a', op_id: '' }, 'empty'],
    ['/pages', { container: 'ENG', title: 'a', op_id: 7 }, 'not a string'],
    [`/pages?op_id=${encodeURIComponent('tab\there')}`, { container: 'ENG', title: 'a' }, 'query with a tab'],
    ['/pages?op_id=one', { container: 'ENG', title: 'a', op_id: 'two' }, 'body and query differ'],
  ];
  for (const [path, body, why] of cases) {
    const r = await n.call('POST', path, { body });
    t.equal(r.status, 400, why);
    t.equal(r.json['error'], 'op_id_invalid', why);
  }
  const ok = await n.call('POST', '/pages', {
    body: { container: 'ENG', title: 'a', op_id: 'x'.repeat(128) },
  });
  t.equal(ok.status, 201, '128 bytes of visible ASCII is accepted');
  t.equal((await n.bus.streamInfo('SVC_PAGES')).messages, 1, 'the refused ones wrote nothing');
});

t.test(
  'an op_id reused by another write is refused 409 op_id_reused, never answered as that write',
  async (t) => {
    const n = await startPagesNode(t);
    const first = await n.call('POST', '/pages', {
      body: { container: 'ENG', title: 'First', op_id: 'p-1' },
    });
    const other = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Other' } });
    const otherId = other.json['page_id'] as string;
    const before = (await n.bus.streamInfo('SVC_PAGES')).messages;
    const cases: Array<[string, string, unknown]> = [
      ['POST', '/pages', { container: 'SALES', title: 'Elsewhere', op_id: 'p-1' }],
      ['PATCH', `/pages/${otherId}`, { body: 'hijack', op_id: 'p-1' }],
      ['POST', `/pages/${otherId}/comments`, { body: 'hijack', op_id: 'p-1' }],
      ['DELETE', `/pages/${otherId}?op_id=p-1`, undefined],
    ];
    for (const [method, path, body] of cases) {
      const r = await n.call(method, path, { body });
      t.equal(r.status, 409, `${method} ${path}`);
      t.equal(r.json['error'], 'op_id_reused', `${method} ${path}`);
    }
    t.equal((await n.bus.streamInfo('SVC_PAGES')).messages, before, 'nothing written');
    t.equal((await n.call('GET', `/pages/${otherId}`)).json['version'], 1, 'the other page untouched');
    const retry = await n.call('POST', '/pages', {
      body: { container: 'ENG', title: 'First', op_id: 'p-1' },
    });
    t.equal(retry.json['repeated'], true, 'the same gesture is still a retry');
    t.equal(retry.json['page_id'], first.json['page_id']);
  },
);

t.test('a delete takes its op_id from the body and refuses unknown fields', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Doomed' } });
  const id = made.json['page_id'] as string;
  const stray = await n.call('DELETE', `/pages/${id}`, { body: { op_id: 'd-1', force: true } });
  t.equal(stray.status, 400);
  t.equal(stray.json['error'], 'invalid_body');
  t.match(stray.json['problems'], [{ kind: 'unknown_field', message: /force/ }]);
  const two = await n.call('DELETE', `/pages/${id}?op_id=d-2`, { body: { op_id: 'd-1' } });
  t.equal(two.json['error'], 'op_id_invalid', 'body and query naming two op_ids');
  const del1 = await n.call('DELETE', `/pages/${id}`, { body: { op_id: 'd-1' } });
  t.equal(del1.status, 200);
  t.equal(del1.json['op_id'], 'd-1', 'the body names the op_id');
  const del2 = await n.call('DELETE', `/pages/${id}`, { body: { op_id: 'd-1' } });
  t.equal(del2.status, 200, 'a retry is recognised');
  t.equal(del2.json['repeated'], true);
});

t.test(
  'a no_container refusal is not recorded: once the chart declares it, the same op_id creates the page',
  async (t) => {
    const n = await startPagesNode(t);
    const body = { container: 'ORG', title: 'Welcome', op_id: 'nc1' };
    const refused = await n.call('POST', '/pages', { body });
    t.equal(refused.status, 404);
    t.equal(refused.json['error'], 'no_container');
    t.equal((await n.bus.streamInfo('SVC_PAGES')).messages, 0, 'nothing appended');
    const again = await n.call('POST', '/pages', { body });
    t.equal(again.json['error'], 'no_container', 'while undeclared, a retry is refused the same way');
    const doc = n.chart.document as { knowledge: { wiki_spaces: string[] } };
    doc.knowledge.wiki_spaces.push('ORG');
    const created = await n.call('POST', '/pages', { body });
    t.equal(created.status, 201, JSON.stringify(created.json));
    t.equal(created.json['repeated'], false, 'the op_id was unused: this is its first outcome');
    const retried = await n.call('POST', '/pages', { body });
    t.equal(retried.json['repeated'], true);
    t.equal(retried.json['page_id'], created.json['page_id']);
  },
);

t.test('an op_id in the body and another in the query is refused saying just that', async (t) => {
  const n = await startPagesNode(t);
  const r = await n.call('POST', '/pages?op_id=one', {
    body: { container: 'ENG', title: 'a', op_id: 'two' },
  });
  t.equal(r.json['error'], 'op_id_invalid');
  // Both op_ids are in the grammar: the detail names the disagreement, not a shape either one lacks.
  t.equal(
    r.json['detail'],
    'The body and the query name two different op_ids; send one, or the same in both.',
  );
});
