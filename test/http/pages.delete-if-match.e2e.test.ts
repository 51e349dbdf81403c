/**
 * `DELETE /pages/{id}` honours `If-Match` as `PATCH` does (ops/knowledge-base.md "Writes"): a stale version
 * is 409 `page_conflict` and the page stays, a weak tag or `*` is 400 `bad_params`, and the version is
 * decided in log order, so a delete and an edit racing from one version leave one winner on every node.
 */
import t from 'tap';
import { Subjects } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { until } from '../harness/until.js';
import { startPagesNode, type PagesNode } from './fixtures/pages-node.js';

const stored = async (n: PagesNode): Promise<number> => (await n.bus.streamInfo('SVC_PAGES')).messages;

t.test('a delete with a stale If-Match is refused 409 page_conflict and the page stays', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Kept' } });
  const id = made.json['page_id'] as string;
  t.equal((await n.call('PATCH', `/pages/${id}`, { body: { body: 'v2' } })).json['version'], 2);

  const stale = await n.call('DELETE', `/pages/${id}`, { headers: { 'if-match': '"1"' } });
  t.equal(stale.status, 409, JSON.stringify(stale.json));
  t.equal(stale.json['error'], 'page_conflict');
  t.match(stale.json['detail'], /version 2, not 1/);
  // A tag of more digits than any version (or a header far longer than a tag) matches none either.
  for (const tag of [
    'W/"2"',
    '*',
    'nope',
    '"02"',
    `"${'9'.repeat(16)}"`,
    '9'.repeat(3000),
    'x'.repeat(9000),
  ]) {
    const weak = await n.call('DELETE', `/pages/${id}`, { headers: { 'if-match': tag } });
    t.match(
      weak,
      { status: 400, json: { error: 'bad_params' } },
      `If-Match ${tag.slice(0, 20)} matches no version`,
    );
  }
  const page = await n.call('GET', `/pages/${id}`);
  t.equal(page.status, 200, 'the page is still there');
  t.equal(page.json['version'], 2);

  const current = await n.call('DELETE', `/pages/${id}`, {
    headers: { 'if-match': page.headers.get('etag')! },
  });
  t.equal(current.status, 200, 'the ETag of the current version deletes it');
  t.equal((await n.call('GET', `/pages/${id}`)).status, 404);
});

t.test('a delete whose If-Match lists the current version among others deletes the page', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Listed' } });
  const id = made.json['page_id'] as string;
  const weak = await n.call('DELETE', `/pages/${id}`, { headers: { 'if-match': 'W/"1", "4"' } });
  t.equal(weak.status, 409, 'a weak tag never matches, even listed beside a strong one');
  const listed = await n.call('DELETE', `/pages/${id}`, { headers: { 'if-match': '"4", "1"' } });
  t.equal(listed.status, 200, 'RFC 9110 13.1.1: any listed tag may match');
});

t.test('an edit and a delete recorded from the same version: the first recorded wins', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Raced' } });
  const id = made.json['page_id'] as string;
  // Both decided from version 1 (as by two nodes at once) and appended in this order.
  const by = { kind: 'operator', id: 'ops', name: null };
  const at = new Date().toISOString();
  const records = [
    ['update', { op_id: 'race-edit', at, by, type: 'page.update', page_id: id, body: 'b', base_version: 1 }],
    ['delete', { op_id: 'race-del', at, by, type: 'page.delete', page_id: id, base_version: 1 }],
  ] as const;
  for (const [kind, record] of records)
    await n.bus.publish(Subjects.pages(kind), new TextEncoder().encode(JSON.stringify(record)));
  await n.knowledge.projection.when((s) => s.outcomes.has('race-del'), 10_000);
  const outcomes = n.knowledge.projection.state().outcomes;
  t.match(outcomes.get('race-edit'), { ok: true, version: 2 });
  t.match(outcomes.get('race-del'), { ok: false, error: 'page_conflict' });
  t.equal((await n.call('GET', `/pages/${id}`)).json['version'], 2, 'the edit stands');
});

t.test('two nodes racing an edit and a delete from one version leave one winner', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const a = await startPagesNode(t, { bus });
  const b = await startPagesNode(t, { bus });
  for (let round = 0; round < 5; round++) {
    const made = await a.call('POST', '/pages', { body: { container: 'ENG', title: `Race ${round}` } });
    const id = made.json['page_id'] as string;
    const before = await stored(a);
    const [edit, del] = await Promise.all([
      a.call('PATCH', `/pages/${id}`, { body: { body: 'edited' }, headers: { 'if-match': '"1"' } }),
      b.call('DELETE', `/pages/${id}`, { headers: { 'if-match': '"1"' } }),
    ]);
    const won = [edit.status, del.status].filter((s) => s === 200).length;
    t.equal(won, 1, `round ${round}: one winner (edit ${edit.status}, delete ${del.status})`);
    const loser = edit.status === 200 ? del : edit;
    t.ok(
      ['page_conflict', 'not_found'].includes(loser.json['error'] as string),
      `round ${round}: the other is refused (${String(loser.json['error'])})`,
    );
    // Both nodes end on the winner's page: edited at version 2, or gone.
    const expected = edit.status === 200 ? 200 : 404;
    for (const node of [a, b]) {
      const read = await until(
        () => node.call('GET', `/pages/${id}`),
        (r) => r.status === expected,
      );
      if (expected === 200) t.equal(read.json['version'], 2, `round ${round}: the edit stands`);
    }
    t.ok((await stored(a)) - before <= 2, 'the loser wrote nothing more than its refused record');
  }
});
