/**
 * A person's priorities, saved views (with counts) and pins through the real gateway, their refusals and
 * retries, and replay equal to live for the person state.
 */
import t from 'tap';
import { Streams } from '../../bus/index.js';
import { followWork } from '../../projections/index.js';
import type { WorkState } from '../../schema/index.js';
import { CI, OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness, type WorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const send = (url: string, body: unknown, auth = OPS, method = 'POST') =>
  call(url, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const get = (url: string, auth = OPS) => call(url, { headers: { authorization: auth } });
const del = (url: string, auth = OPS) => call(url, { method: 'DELETE', headers: { authorization: auth } });
const keys = (rows: unknown) => (rows as Json[]).map((r) => r.key ?? r.id);

async function seed(w: WorkHarness): Promise<void> {
  await send(`${w.base}/work`, { project: 'ENG', title: 'One', assignees: ['ada'], priority: 'high' }, CI);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Two', status: 'todo' }, CI);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Three', status: 'todo', labels: ['ui'] }, CI);
  await send(`${w.base}/work`, { project: 'OPS', title: 'Four' }, CI);
}

t.test(
  'priorities: set in the person’s order, shown by people and my-work, cleared by an empty list',
  async (t) => {
    const w = await startWorkHarness(t);
    await seed(w);
    const before = await get(`${w.base}/work/people/ada`);
    t.same(keys(before.json?.priorities), ['ENG-1'], 'derived from open urgent and high items');
    t.equal(before.json?.priorities_source, 'derived');
    const set = await send(
      `${w.base}/work/people/ada/priorities`,
      { items: ['OPS-1', 'eng-2', 'OPS-1'], op_id: 'p-1' },
      OPS,
      'PUT',
    );
    t.equal(set.status, 200);
    t.same(keys((set.json?.person as Json).priorities), ['OPS-1', 'ENG-2'], 'order kept, repeats once');
    t.equal(
      (await send(`${w.base}/work/people/ada/priorities`, { items: [], op_id: 'p-1' }, OPS, 'PUT')).json
        ?.outcome,
      'repeated',
    );
    const mine = await get(`${w.base}/work/my-work`);
    t.same(keys(mine.json?.priorities), ['OPS-1', 'ENG-2']);
    t.equal(mine.json?.priorities_source, 'set');
    await send(`${w.base}/work/OPS-1/purge`, { confirm: 'OPS-1', project: 'OPS', reason: 'gone' });
    t.same(
      keys((await get(`${w.base}/work/people/ada`)).json?.priorities),
      ['ENG-2'],
      'a purged item drops out',
    );
    const bad = await send(`${w.base}/work/people/ada/priorities`, { items: ['ENG-99'] }, OPS, 'PUT');
    t.equal(bad.json?.error, 'validation_error');
    t.match(bad.json?.problems, [{ path: 'items.0' }]);
    const many = Array.from({ length: 51 }, () => 'ENG-1');
    t.equal((await send(`${w.base}/work/people/ada/priorities`, { items: many }, OPS, 'PUT')).status, 400);
    t.equal(
      (await send(`${w.base}/work/people/bob/priorities`, { items: [] }, CI, 'PUT')).status,
      200,
      'a token for bob',
    );
    await send(`${w.base}/work/people/ada/priorities`, { items: [] }, OPS, 'PUT');
    t.equal((await get(`${w.base}/work/people/ada`)).json?.priorities_source, 'derived', 'cleared');
    t.equal((await get(`${w.base}/work/people/bob`, CI)).json?.held, true);
  },
);

t.test('saved views: create, counts, update, delete; pins of built-in and saved views', async (t) => {
  const w = await startWorkHarness(t);
  await seed(w);
  const created = await send(`${w.base}/work/views/saved`, {
    name: 'ENG to do',
    filter: { project: 'ENG', group: ['todo'] },
    op_id: 'v-1',
  });
  t.equal(created.status, 201);
  const view = created.json?.view as Json;
  t.match(view, { name: 'ENG to do', layout: 'list', container: 'ENG', kind: 'saved', pinned: false });
  const retry = await send(`${w.base}/work/views/saved`, { name: 'ENG to do', op_id: 'v-1' });
  t.equal(retry.status, 200);
  t.equal((retry.json?.view as Json).id, view.id, 'a retry answers the view first made');
  const ui = await send(`${w.base}/work/views/saved`, {
    name: 'UI',
    layout: 'board',
    filter: { label: 'ui' },
  });
  const uiId = String((ui.json?.view as Json).id);
  const saved = await get(`${w.base}/work/views/saved?counts=true`);
  t.same(
    (saved.json?.views as Json[]).map((v) => v.name),
    ['ENG to do', 'UI'],
  );
  t.same(saved.json?.counts, { [String(view.id)]: 3, [uiId]: 1 });
  // A handle is read in any case on every /work route: a view's assignee filter too.
  const adas = await send(`${w.base}/work/views/saved`, { name: 'Ada', filter: { assignee: 'Ada' } });
  t.equal(adas.status, 201, 'an assignee in capitals names the seat');
  t.equal(((adas.json?.view as Json).filter as Json).assignee, 'ada', 'kept as the handle');
  await del(`${w.base}/work/views/saved/${String((adas.json?.view as Json).id)}`);
  t.equal((await get(`${w.base}/work/views/saved`)).json?.counts, undefined, 'counts only on request');
  t.same((await get(`${w.base}/work/views/saved?viewer=bob`, CI)).json?.views, [], "bob's are his own");

  const renamed = await send(
    `${w.base}/work/views/saved/${String(view.id)}`,
    { name: 'Open ENG' },
    OPS,
    'PATCH',
  );
  t.equal(renamed.status, 200);
  t.equal((renamed.json?.view as Json).name, 'Open ENG');
  const narrowed = await send(
    `${w.base}/work/views/saved/${String(view.id)}`,
    { filter: { project: 'ENG', status: ['todo'], label: 'ui' } },
    OPS,
    'PATCH',
  );
  t.equal(narrowed.status, 200);
  t.same((await get(`${w.base}/work/views/saved?counts=true`)).json?.counts, {
    [String(view.id)]: 1,
    [uiId]: 1,
  });

  const refusals: Array<[Promise<{ status: number }>, number, string]> = [
    [
      send(`${w.base}/work/views/saved/${String(view.id)}`, { name: 'Open ENG' }, OPS, 'PATCH'),
      400,
      'no change',
    ],
    [send(`${w.base}/work/views/saved/nope`, { name: 'x' }, OPS, 'PATCH'), 404, 'unknown view'],
    [send(`${w.base}/work/views/saved`, { name: 'x', filter: { project: 'NOPE' } }), 400, 'unknown project'],
    [send(`${w.base}/work/views/saved`, { name: 'x', filter: { colour: 'red' } }), 400, 'unknown filter'],
    [send(`${w.base}/work/views/saved`, { name: '' }), 400, 'empty name'],
    [send(`${w.base}/work/views/saved`, { name: 'x', layout: 'gantt' }), 400, 'unknown layout'],
    [send(`${w.base}/work/views/saved`, { name: 'x', op_id: 'a b' }), 400, 'op_id grammar'],
    [send(`${w.base}/work/views/pinned`, { view: 'NOPE:board' }), 404, 'no such project'],
    [send(`${w.base}/work/views/pinned`, { view: 'OLD:board' }), 404, 'archived project'],
    [send(`${w.base}/work/views/pinned`, { view: 'someone-elses' }), 404, 'no such saved view'],
    [del(`${w.base}/work/views/pinned/ENG:list`), 404, 'not pinned'],
  ];
  for (const [answer, status, why] of refusals) t.equal((await answer).status, status, why);

  await send(`${w.base}/work/views/pinned`, { view: uiId });
  await send(`${w.base}/work/views/pinned`, { view: 'ENG:board', op_id: 'pin-1' });
  t.equal(
    (await send(`${w.base}/work/views/pinned`, { view: 'ENG:board' })).status,
    200,
    'pinning again is no change',
  );
  await send(`${w.base}/work/views/pinned`, { view: 'ENG:mine' });
  const person = await get(`${w.base}/work/people/ada`);
  t.same(keys(person.json?.pinned_views), [uiId, 'ENG:board', 'ENG:mine']);
  t.equal(person.json?.saved_views, 2);
  const views = await get(`${w.base}/work/views?container=ENG`);
  const byHandle = await get(`${w.base}/work/views?container=ENG&handle=${String(views.json?.viewer)}`);
  t.same(byHandle.json, views.json, '?handle= names the viewer as on the other personal routes');
  const both = await get(`${w.base}/work/views/saved?viewer=ada&handle=someone-else`);
  t.match(both, { status: 400, json: { error: 'bad_params' } }, 'viewer and handle naming two people');
  const cased = await get(`${w.base}/work/views/saved?viewer=Ada&handle=ada`);
  t.equal(cased.status, 200, 'viewer and handle naming one person in two cases');
  t.same(
    (views.json?.views as Json[]).map((v) => [v.id, v.pinned]),
    [
      ['ENG:board', true],
      ['ENG:list', false],
      ['ENG:mine', true],
    ],
  );
  t.equal((await del(`${w.base}/work/views/pinned/ENG:mine`)).status, 200);
  const deleted = await del(`${w.base}/work/views/saved/${uiId}?op_id=del-1`);
  t.equal(deleted.status, 200);
  t.equal((await del(`${w.base}/work/views/saved/${uiId}?op_id=del-1`)).json?.outcome, 'repeated');
  t.equal((await del(`${w.base}/work/views/saved/${uiId}`)).status, 404);
  t.same(keys((await get(`${w.base}/work/people/ada`)).json?.pinned_views), ['ENG:board'], 'deleting unpins');
  t.equal((await del(`${w.base}/work/views/saved/${uiId}?op_id=bad%20id`)).json?.error, 'op_id_invalid');

  // Twenty pins at most: two built-in and eighteen saved views more make twenty-one.
  for (let i = 0; i < 18; i++) {
    const v = await send(`${w.base}/work/views/saved`, { name: `v${i}` });
    await send(`${w.base}/work/views/pinned`, { view: (v.json?.view as Json).id });
  }
  await send(`${w.base}/work/views/pinned`, { view: 'OPS:list' });
  const full = await send(`${w.base}/work/views/pinned`, { view: 'OPS:board' });
  t.equal(full.json?.error, 'validation_error', 'a twenty-first pin is refused');
  t.match(full.json?.problems, [{ path: 'view', segments: ['view'], kind: 'out_of_range' }]);
});

const snapshot = (s: WorkState): string =>
  JSON.stringify(
    [...s.people.values()].map((p) => ({
      ...p,
      read: [...p.read],
      snoozed: [...p.snoozed],
      views: [...p.views],
    })),
  );

t.test('replay equals live for person state', async (t) => {
  const w = await startWorkHarness(t);
  await seed(w);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Five', assignees: ['ada'] }, CI);
  const rows = ((await get(`${w.base}/work/inbox`)).json?.items as Json[]).map((r) => String(r.id));
  await send(`${w.base}/work/inbox/read`, { ids: [rows[0]] });
  await send(`${w.base}/work/inbox/snooze`, { ids: [rows[1]], until: '2999-01-01T00:00:00Z' });
  await send(`${w.base}/work/people/ada/priorities`, { items: ['ENG-2'] }, OPS, 'PUT');
  const v = await send(`${w.base}/work/views/saved`, { name: 'x', filter: { priority: 'high' } });
  await send(`${w.base}/work/views/pinned`, { view: (v.json?.view as Json).id });
  await send(`${w.base}/work/views/saved/${String((v.json?.view as Json).id)}`, { name: 'y' }, OPS, 'PATCH');
  await send(`${w.base}/work/views/pinned`, { view: 'ENG:list' });
  const live = snapshot(w.view.state());
  t.ok(w.view.state().people.get('ada')?.views.size === 1, 'the live state has content');
  const replayed = await followWork({ bus: w.bus });
  t.teardown(() => replayed.stop());
  t.equal(snapshot(replayed.state()), live, 'a fresh replay folds to the same person state');
  await w.view.running.rebuild();
  t.equal(snapshot(w.view.state()), live, 'a rebuild folds to the same person state');
});

t.test(
  'the views routes without a person (no credential, or an unbound token) are 400 bad_params',
  async (t) => {
    const w = await startWorkHarness(t);
    for (const path of ['/work/views', '/work/views?container=ENG', '/work/views/saved']) {
      const anonymous = await call(`${w.base}${path}`);
      t.equal(anonymous.status, 400, `${path} with no credential`);
      t.equal(anonymous.json?.error, 'bad_params', path);
      t.match(anonymous.json?.detail, /no credential/, path);
      const unbound = await get(`${w.base}${path}`, CI);
      t.equal(unbound.status, 400, `${path} with an unbound token`);
      t.equal(unbound.json?.error, 'bad_params', path);
    }
    const own = await get(`${w.base}/work/views`);
    t.equal(own.json?.viewer, 'ada', 'a bound token is its person');
  },
);

t.test('a saved view name or filter text with a control character or lone surrogate is 400', async (t) => {
  const w = await startWorkHarness(t);
  const made = await send(`${w.base}/work/views/saved`, { name: 'Fine', filter: {} });
  t.equal(made.status, 201);
  const id = String((made.json?.view as Json).id);
  const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  const refused: Array<[Json, string]> = [
    [{ name: 'a\u0000b', filter: {} }, 'name'],
    [{ name: 'tab\there' }, 'name'],
    [{ name: 'nel\u0085' }, 'name'],
    [{ name: 'lone \ud800' }, 'name'],
    [{ name: 'Labelled', filter: { label: 'a\u0000' } }, 'filter.label'],
    [{ name: 'Query', filter: { q: 'two\nlines' } }, 'filter.q'],
    [{ name: 'Typed', filter: { type: 'bug\u0007' } }, 'filter.type'],
  ];
  for (const [body, path] of refused) {
    const saved = await send(`${w.base}/work/views/saved`, body);
    t.equal(saved.status, 400, `save ${JSON.stringify(body)}`);
    t.equal(saved.json?.error, 'invalid_body');
    t.same(
      (saved.json?.problems as Json[]).map((p) => p.path),
      [path],
    );
    const updated = await send(`${w.base}/work/views/saved/${id}`, body, OPS, 'PATCH');
    t.equal(updated.status, 400, `update ${JSON.stringify(body)}`);
    t.same(
      (updated.json?.problems as Json[]).map((p) => p.path),
      [path],
    );
  }
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing written');
});
