import { pino } from 'pino';
import t from 'tap';
import { Subjects } from '../../bus/index.js';
import {
  listPages,
  pageDetail,
  pagesProjection,
  runProjection,
  type PagesState,
} from '../../projections/index.js';
import { startPagesNode } from '../http/fixtures/pages-node.js';

const snapshot = (state: PagesState) => ({
  pages: [...state.pages.values()].map((p) => pageDetail(state, p)).sort((a, b) => a.id.localeCompare(b.id)),
  outcomes: [...state.outcomes].sort(([a], [b]) => a.localeCompare(b)),
  counts: [...state.counts].sort(),
  search: ['deploy', 'guide', 'runbook notes'].map((q) => listPages(state, { q, limit: 50 })),
  listing: listPages(state, { limit: 200 }),
});

t.test('a replay of SVC_PAGES from zero equals the live projection', async (t) => {
  const n = await startPagesNode(t);
  const make = async (body: Record<string, unknown>) => (await n.call('POST', '/pages', { body })).json;
  const guide = await make({ container: 'ENG', title: 'Deploy guide', body: 'How we deploy.' });
  const id = guide['page_id'] as string;
  await make({ container: 'ENG', title: 'Runbook', body: 'Runbook notes', parent: id });
  await make({ container: 'ENG', title: 'deploy GUIDE', op_id: 'refused-dup' });
  await n.call('PATCH', `/pages/${id}`, { body: { title: 'Deploy handbook', body: 'deploy deploy' } });
  await n.call('POST', `/pages/${id}/comments`, { body: { body: 'Looks right' } });
  const scratch = await make({ container: 'SALES', title: 'Scratch' });
  await n.call('DELETE', `/pages/${scratch['page_id'] as string}`);
  await make({ container: 'SALES', title: 'Scratch', body: 'again' });

  const replayed = await runProjection({
    bus: n.bus,
    projection: pagesProjection(),
    logger: pino({ level: 'silent' }),
  });
  t.teardown(() => replayed.stop());
  t.equal(replayed.boot.from, 'zero');
  t.same(snapshot(replayed.state()), snapshot(n.knowledge.projection.state()));
  t.ok(
    replayed.state().outcomes.get('refused-dup')?.ok === false,
    'the refusal is decided the same on replay',
  );

  // A rebuild through the runner's own path lands on the same state.
  await n.knowledge.projection.rebuild();
  t.same(snapshot(n.knowledge.projection.state()), snapshot(replayed.state()));
});

t.test('search ranks by BM25: a title match first, then the body that says it most', async (t) => {
  const n = await startPagesNode(t);
  const make = (title: string, body: string) =>
    n.call('POST', '/pages', { body: { container: 'ENG', title, body } });
  await make(
    'Incident notes',
    'We talked about lunch and then once about the deploy window, among other things.',
  );
  await make('Deploy checklist', 'Steps to follow.');
  await make('Release notes', 'deploy deploy deploy: every release needs a deploy.');
  await make('Unrelated', 'Nothing here.');
  const r = await n.call('GET', '/pages?q=deploy');
  const rows = r.json['pages'] as Array<Record<string, unknown>>;
  t.same(
    rows.map((p) => p['title']),
    ['Deploy checklist', 'Release notes', 'Incident notes'],
  );
  const scores = rows.map((p) => p['score'] as number);
  t.ok(scores[0]! > scores[1]! && scores[1]! > scores[2]!, `scores fall with rank: ${scores.join(', ')}`);
  const both = await n.call('GET', '/pages?q=release%20deploy');
  t.same(
    (both.json['pages'] as Array<Record<string, unknown>>).map((p) => p['title']),
    ['Release notes'],
    'every word must appear',
  );
});

t.test(
  'a page stored under the earlier title rule (a C1 character) still folds, live and on replay',
  async (t) => {
    const n = await startPagesNode(t);
    // Written before titles refused C1 controls and lone surrogates; the log keeps it.
    const record = {
      op_id: 'old-c1',
      at: '2026-01-01T00:00:00.000Z',
      by: { kind: 'operator', id: 'ops', name: null },
      type: 'page.create',
      page_id: 'p-old-c1',
      container: 'ENG',
      title: 'Next\u0085line \ud800',
      body: 'kept',
      parent_id: null,
    };
    await n.bus.publish(Subjects.pages('create'), new TextEncoder().encode(JSON.stringify(record)));
    await n.knowledge.projection.when((s) => s.outcomes.has('old-c1'), 10_000);
    t.equal(n.knowledge.projection.state().pages.get('p-old-c1')?.title, 'Next\u0085line \ud800');
    const read = await n.call('GET', '/pages/p-old-c1');
    t.equal(read.status, 200);
    const edit = await n.call('PATCH', '/pages/p-old-c1', { body: { body: 'edited' } });
    t.equal(edit.status, 200, 'and takes writes that leave its title be');
    const replayed = await runProjection({
      bus: n.bus,
      projection: pagesProjection(),
      logger: pino({ level: 'silent' }),
    });
    t.teardown(() => replayed.stop());
    t.equal(replayed.state().pages.get('p-old-c1')?.body, 'edited', 'a replay folds it too');
  },
);
