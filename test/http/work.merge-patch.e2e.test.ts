/**
 * `PATCH /work/{id}` is a JSON merge patch (RFC 7396): a member set to null removes it, so every field an
 * item may be without is cleared by null, and one it always has (title, type, status, project) is refused
 * naming it (ops/work-tracker.md "Writes"). A body naming no field is refused in its own words.
 */
import t from 'tap';
import { Streams } from '../../bus/index.js';
import { OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness, type WorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const send = (url: string, body: unknown, method = 'POST') =>
  call(url, {
    method,
    headers: { authorization: OPS, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const lastSeq = async (w: WorkHarness) => (await w.bus.streamInfo(Streams.Work)).lastSeq;

t.test('a member set to null clears the field, as a merge patch removes it', async (t) => {
  const w = await startWorkHarness(t);
  t.equal((await send(`${w.base}/work`, { project: 'ENG', title: 'Target' })).status, 201);
  const full = {
    project: 'ENG',
    title: 'Full',
    description: 'Long text',
    priority: 'high',
    assignees: ['coder'],
    watchers: ['bob'],
    asked_of: ['ada'],
    labels: ['ui'],
    links: [{ kind: 'relates', item: 'ENG-1' }],
    checklist: [{ id: 'a', text: 'step', assignee: 'bob' }],
    fields: { estimate: 3 },
    due_date: '2027-03-01',
  };
  t.equal((await send(`${w.base}/work`, full)).status, 201);
  const cleared = {
    description: null,
    priority: null,
    assignees: null,
    watchers: null,
    asked_of: null,
    labels: null,
    links: null,
    checklist: null,
    fields: null,
    due_date: null,
  };
  const r = await send(`${w.base}/work/ENG-2`, cleared, 'PATCH');
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.match(r.json?.item, {
    title: 'Full',
    type: 'task',
    description: '',
    priority: 'none',
    assignees: [],
    watchers: [],
    asked_of: [],
    labels: [],
    links: [],
    checklist: [],
    fields: {},
    due_date: null,
  });
  const again = await send(`${w.base}/work/ENG-2`, { description: null, labels: null }, 'PATCH');
  t.equal(again.status, 400, 'clearing what is clear changes nothing');
  t.match(again.json?.problems, [{ path: '', message: /^changes nothing: description, labels already/ }]);
  // One member at a time too, each on its own.
  t.equal((await send(`${w.base}/work/ENG-2`, { priority: 'low', description: 'x' }, 'PATCH')).status, 200);
  const one = await send(`${w.base}/work/ENG-2`, { priority: null }, 'PATCH');
  t.equal(one.status, 200);
  t.match(one.json?.item, { priority: 'none', description: 'x' });
});

t.test('a field an item always has, set to null, is refused naming it and writes nothing', async (t) => {
  const w = await startWorkHarness(t);
  t.equal((await send(`${w.base}/work`, { project: 'ENG', title: 'Kept' })).status, 201);
  const before = await lastSeq(w);
  for (const [name, hint] of [
    ['title', /title/],
    ['type', /catalogue/],
    ['status', /move/],
    ['project', /project/],
  ] as const) {
    const r = await send(`${w.base}/work/ENG-1`, { [name]: null, description: 'changed' }, 'PATCH');
    t.equal(r.status, 400, name);
    t.equal(r.json?.error, 'validation_error', name);
    t.match(r.json?.detail, new RegExp(`${name} cannot be removed`), name);
    t.match(r.json?.hint, hint, name);
    t.match(r.json?.problems, [{ path: name, segments: [name], message: /cannot be removed/ }], name);
  }
  const both = await send(`${w.base}/work/ENG-1`, { title: null, type: null }, 'PATCH');
  t.same(
    (both.json?.problems as Json[]).map((p) => p.path),
    ['title', 'type'],
    'each named',
  );
  t.equal(await lastSeq(w), before, 'nothing written');
  const item = await call(`${w.base}/work/ENG-1`);
  t.match(item.json, { title: 'Kept', type: 'task', description: '' });
});

t.test('a PATCH naming no field says so, not that every field given has its value', async (t) => {
  const w = await startWorkHarness(t);
  t.equal((await send(`${w.base}/work`, { project: 'ENG', title: 'Same' })).status, 201);
  const empty = await send(`${w.base}/work/ENG-1`, {}, 'PATCH');
  t.equal(empty.status, 400);
  t.equal(empty.json?.error, 'validation_error');
  t.match(empty.json?.detail, /names no field/);
  t.notMatch(empty.json?.detail, /every field given/);
  t.match(empty.json?.problems, [
    { path: '', message: 'changes nothing: the body names no field to change' },
  ]);
  const same = await send(`${w.base}/work/ENG-1`, { title: 'Same' }, 'PATCH');
  t.match(same.json?.detail, /every field given has that value already/, 'a field given keeps its wording');
  const view = await send(`${w.base}/work/views/saved`, { name: 'Mine', filter: { project: 'ENG' } });
  t.equal(view.status, 201);
  const id = (view.json?.view as Json).id as string;
  const blank = await send(`${w.base}/work/views/saved/${id}`, {}, 'PATCH');
  t.equal(blank.status, 400);
  t.match(blank.json?.detail, /names no field/, 'a saved view alike');
  t.notMatch(blank.json?.detail, /every field given/);
});
