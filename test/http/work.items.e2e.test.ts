import t from 'tap';
import { Streams } from '../../bus/index.js';
import { CI, OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const post = (url: string, body: unknown, auth = OPS, method = 'POST') =>
  call(url, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

t.test('a created item gets the next key of its project and reads back in full', async (t) => {
  const w = await startWorkHarness(t);
  const a = await post(`${w.base}/work`, { project: 'ENG', title: 'First', op_id: 'op-1' });
  t.equal(a.status, 201);
  t.equal(a.json?.key, 'ENG-1');
  t.match(a.json?.position, /^SVC_WORK@1:\d+$/);
  const b = await post(`${w.base}/work`, { project: 'ENG', title: 'Second', priority: 'high', type: 'bug' });
  t.equal(b.json?.key, 'ENG-2');
  const c = await post(`${w.base}/work`, { project: 'OPS', title: 'Other project' });
  t.equal(c.json?.key, 'OPS-1', 'each project counts on its own');
  const byKey = await call(`${w.base}/work/eng-2`);
  t.equal(byKey.status, 200, 'a key is matched without regard to case');
  t.equal(byKey.json?.title, 'Second');
  t.equal(byKey.json?.status, 'backlog');
  t.equal(byKey.json?.group, 'todo');
  t.same(byKey.json?.thread, []);
  t.equal((byKey.json?.history as Json[]).length, 1);
  const byId = await call(`${w.base}/work/${String(byKey.json?.id)}`);
  t.equal(byId.json?.key, 'ENG-2', 'an id names the item too');
  const list = await call(`${w.base}/work?project=ENG`);
  t.same(
    (list.json?.items as Json[]).map((i) => i.key),
    ['ENG-2', 'ENG-1'],
    'newest first',
  );
  t.same(list.json?.last_numbers, { ENG: 2, OPS: 1 });
  const filtered = await call(`${w.base}/work?priority=high&type=bug`);
  t.same(
    (filtered.json?.items as Json[]).map((i) => i.key),
    ['ENG-2'],
  );
  // A priority outside the closed set is a typo to report, not a filter that matches nothing.
  const typo = await call(`${w.base}/work?priority=hihg`);
  t.equal(typo.status, 400);
  t.equal(typo.json?.error, 'bad_params');
  t.match(typo.json?.detail, /unknown priority "hihg"/);
  const missing = await call(`${w.base}/work/ENG-99`);
  t.equal(missing.status, 404);
  t.equal(missing.json?.error, 'not_found');
});

t.test('a retry with the same op_id answers the first outcome and appends nothing', async (t) => {
  const w = await startWorkHarness(t);
  const first = await post(`${w.base}/work`, { project: 'ENG', title: 'Once', op_id: 'retry-me' });
  const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  const again = await post(`${w.base}/work`, { project: 'ENG', title: 'Twice?', op_id: 'retry-me' });
  t.equal(again.status, 200);
  t.equal(again.json?.outcome, 'repeated');
  t.equal(again.json?.key, first.json?.key);
  t.equal(again.json?.position, first.json?.position);
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing appended');
  const comment1 = await post(`${w.base}/work/ENG-1/comments`, { body: 'hello', op_id: 'c-1' });
  const comment2 = await post(`${w.base}/work/ENG-1/comments`, { body: 'hello', op_id: 'c-1' });
  t.equal(comment1.json?.position, comment2.json?.position);
  t.equal(((await call(`${w.base}/work/ENG-1`)).json?.thread as Json[]).length, 1, 'one comment');
});

t.test('op_id outside its grammar is refused 400 op_id_invalid', async (t) => {
  const w = await startWorkHarness(t);
  for (const op_id of ['x'.repeat(129), 'has space', 'naïve', '']) {
    const r = await post(`${w.base}/work`, { project: 'ENG', title: 'x', op_id });
    t.equal(r.status, 400, JSON.stringify(op_id).slice(0, 20));
    t.equal(r.json?.error, 'op_id_invalid');
  }
  const query = await post(`${w.base}/work?op_id=${'y'.repeat(129)}`, { project: 'ENG', title: 'x' });
  t.equal(query.json?.error, 'op_id_invalid', 'in the query string too');
  const ok = await post(`${w.base}/work`, { project: 'ENG', title: 'x', op_id: 'z'.repeat(128) });
  t.equal(ok.status, 201, '128 bytes is allowed');
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, 1, 'only the valid one was written');
});

t.test('bad items are refused with problems; unknown project is 404 no_project', async (t) => {
  const w = await startWorkHarness(t);
  const unknown = await post(`${w.base}/work`, { project: 'NOPE', title: 'x' });
  t.equal(unknown.status, 404);
  t.equal(unknown.json?.error, 'no_project');
  const archived = await post(`${w.base}/work`, { project: 'OLD', title: 'x' });
  t.equal(archived.json?.error, 'validation_error');
  const bad = await post(`${w.base}/work`, {
    project: 'ENG',
    title: 'x',
    type: 'story',
    assignees: ['nobody'],
    fields: { severity: 'huge' },
    links: [{ kind: 'blocks', item: 'ENG-40' }],
  });
  t.equal(bad.status, 400);
  t.equal(bad.json?.error, 'validation_error');
  t.same((bad.json?.problems as Json[]).map((p) => p.path).sort(), [
    'assignees.0',
    'fields.severity',
    'links.0.item',
    'type',
  ]);
  const noTitle = await post(`${w.base}/work`, { project: 'ENG' });
  t.equal(noTitle.json?.error, 'invalid_body');
  // JSON.parse makes `__proto__` an own key; it is no custom field, so it is refused, not dropped.
  const proto = await call(`${w.base}/work`, {
    method: 'POST',
    headers: { authorization: OPS, 'content-type': 'application/json' },
    body: '{"project":"ENG","title":"x","fields":{"__proto__":1}}',
  });
  t.equal(proto.status, 400, 'a custom field named __proto__');
  t.equal((await call(`${w.base}/work?limit=1`)).json?.total, 0, 'nothing created');
  const notJson = await call(`${w.base}/work`, {
    method: 'POST',
    headers: { authorization: OPS },
    body: '{',
  });
  t.equal(notJson.json?.error, 'invalid_body');
  const anonymous = await call(`${w.base}/work`, { method: 'POST', body: '{}' });
  t.equal(anonymous.status, 401, 'a write needs a token');
});

t.test('a person is named in any case in a write body and kept lower-case', async (t) => {
  const w = await startWorkHarness(t);
  const created = await post(`${w.base}/work`, {
    project: 'ENG',
    title: 'Named in capitals',
    assignees: ['Ada'],
    watchers: ['CODER'],
    checklist: [{ id: 'c1', text: 'Check', assignee: 'Ada' }],
  });
  t.equal(created.status, 201, JSON.stringify(created.json));
  const read = await call(`${w.base}/work/ENG-1`);
  t.same(read.json?.assignees, ['ada']);
  t.same(read.json?.watchers, ['coder']);
  t.equal((read.json?.checklist as Json[])[0]?.assignee, 'ada');
  const patched = await post(`${w.base}/work/ENG-1`, { assignees: ['CODER'] }, OPS, 'PATCH');
  t.equal(patched.status, 200, JSON.stringify(patched.json));
  t.same((await call(`${w.base}/work/ENG-1`)).json?.assignees, ['coder']);
  const nobody = await post(`${w.base}/work`, { project: 'ENG', title: 'x', assignees: ['Nobody'] });
  t.equal(nobody.status, 400, 'a name in any case that is no seat is still refused');
});

t.test('moves follow the workflow; completing publishes TaskCompleted', async (t) => {
  const w = await startWorkHarness(t);
  await post(`${w.base}/work`, { project: 'ENG', title: 'Flow' });
  const skip = await post(`${w.base}/work/ENG-1/move`, { to: 'done' });
  t.equal(skip.status, 400, 'backlog cannot jump to done');
  t.match(skip.json?.problems, [{ path: 'to', message: /todo, in_progress, cancelled/ }]);
  for (const to of ['in_progress', 'in_review', 'done']) {
    const r = await post(`${w.base}/work/ENG-1/move`, { to });
    t.equal(r.status, 200, to);
    t.equal((r.json?.item as Json).status, to);
  }
  const item = (await call(`${w.base}/work/ENG-1`)).json!;
  t.same(
    (item.history as Json[]).slice(1).map((h) => (h.fields as Json).status),
    [
      { from: 'backlog', to: 'in_progress' },
      { from: 'in_progress', to: 'in_review' },
      { from: 'in_review', to: 'done' },
    ],
  );
  const all = await w.until(w.eventLog, (e) => e.some((x) => x.type === 'TaskCompleted'));
  t.same(
    all.map((e) => e.type),
    ['TaskCreated', 'TaskCompleted'],
  );
});

t.test('assignment publishes TaskAssigned and wakes an agent, never a human', async (t) => {
  const w = await startWorkHarness(t);
  await post(`${w.base}/work`, { project: 'ENG', title: 'For the coder', assignees: ['coder', 'bob'] });
  await w.until(w.inboxLength, (n) => n > 0);
  const wake = await w.bus.getMessage(Streams.Inbox, 1);
  t.equal(wake?.subject, 'svc.agent.coder.inbox');
  t.match(JSON.parse(new TextDecoder().decode(wake!.data)), { kind: 'assignment', source: 'work:ENG-1' });
  const patched = await post(`${w.base}/work/ENG-1`, { assignees: ['ada'] }, OPS, 'PATCH');
  t.equal(patched.status, 200);
  const all = await w.until(w.eventLog, (e) => e.some((x) => x.type === 'TaskDelegated'));
  t.equal(await w.inboxLength(), 1, 'one wake: the agent; the humans are skipped');
  t.same(
    all.map((e) => e.type),
    ['TaskCreated', 'TaskAssigned', 'TaskAssigned', 'TaskAssigned', 'TaskDelegated'],
  );
  t.equal(all[1]?.agent_id, 'coder', 'an agent assignee is the event seat');
  t.equal(all[0]?.actor, 'ada', 'the ops token acts as the person bound to it');
  t.equal(all[0]?.category, 'task');
  const unchanged = await post(`${w.base}/work/ENG-1`, { assignees: ['ada'] }, CI, 'PATCH');
  t.equal(unchanged.json?.error, 'validation_error', 'a change that changes nothing is refused');
});

t.test(
  'a comment wakes the item’s agents, from the person who wrote it; a mention wakes whom it names',
  async (t) => {
    const w = await startWorkHarness(t);
    const wakeAt = async (seq: number): Promise<Json> => {
      await w.until(w.inboxLength, (n) => n >= seq);
      const m = await w.bus.getMessage(Streams.Inbox, seq);
      t.equal(m?.subject, 'svc.agent.coder.inbox');
      return JSON.parse(new TextDecoder().decode(m!.data)) as Json;
    };
    await post(`${w.base}/work`, {
      project: 'ENG',
      title: 'Review me',
      assignees: ['coder'],
      watchers: ['bob'],
    });
    t.match(await wakeAt(1), { kind: 'assignment' });
    const said = await post(`${w.base}/work/ENG-1/comments`, { body: 'Is this ready?' });
    t.equal(said.status, 201);
    t.match(await wakeAt(2), {
      kind: 'notification',
      source: 'work:ENG-1',
      summary: 'ada commented on ENG-1: Review me',
      from: 'ada',
      payload: { item: { key: 'ENG-1' }, comment: { author: 'ada', body: 'Is this ready?' } },
    });
    await post(`${w.base}/work`, { project: 'ENG', title: 'Not his' });
    await post(`${w.base}/work/ENG-2/comments`, { body: '@coder can you take this?' }, CI);
    t.match(await wakeAt(3), { kind: 'mention', source: 'work:ENG-2', from: null, summary: /mentioned you on ENG-2/ }); // prettier-ignore
    await post(`${w.base}/work/ENG-2/comments`, { body: 'nobody named here' });
    await post(`${w.base}/work/ENG-1/comments`, { body: 'last one' });
    t.match(await wakeAt(4), { source: 'work:ENG-1', payload: { comment: { body: 'last one' } } });
    t.equal(
      await w.inboxLength(),
      4,
      'the comment on an item coder neither follows nor is named in woke nobody',
    );
  },
);

t.test('comments page newest first with limit and cursor; turns page', async (t) => {
  const w = await startWorkHarness(t);
  await post(`${w.base}/work`, { project: 'ENG', title: 'Talk' });
  for (let i = 1; i <= 23; i++) await post(`${w.base}/work/ENG-1/comments`, { body: `c${i}` });
  const first = await call(`${w.base}/work/comments?item=ENG-1`);
  t.equal((first.json?.comments as Json[]).length, 20, 'default 20');
  t.equal((first.json?.comments as Json[])[0]?.body, 'c23', 'newest first');
  t.equal(first.json?.total, 23);
  const second = await call(`${w.base}/work/comments?item=ENG-1&cursor=${String(first.json?.next)}`);
  t.same(
    (second.json?.comments as Json[]).map((c) => c.body),
    ['c3', 'c2', 'c1'],
  );
  t.equal(second.json?.next, null);
  t.equal((await call(`${w.base}/work/comments?item=ENG-1&limit=51`)).json?.error, 'bad_params', 'max 50');
  t.equal((await call(`${w.base}/work/comments?item=ENG-1&limit=50`)).status, 200);
  t.equal((await call(`${w.base}/work/comments`)).json?.error, 'bad_params', 'item required');
  const turns = await call(`${w.base}/work/turns?id=ENG-1`);
  t.same(turns.json?.turns, [], 'no seat turn changed it');
  t.equal((await call(`${w.base}/work/turns?id=ENG-1&limit=0`)).json?.error, 'bad_params');
});

t.test('purge: confirm, project and reason checked before anything is destroyed', async (t) => {
  const w = await startWorkHarness(t);
  await post(`${w.base}/work`, { project: 'ENG', title: 'Secret pasted here' });
  const seq = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  const long = await post(`${w.base}/work/ENG-1/purge`, {
    confirm: 'ENG-1',
    project: 'ENG',
    reason: 'x'.repeat(601),
  });
  t.equal(long.status, 400);
  t.match(long.json?.problems, [{ path: 'reason', message: /601 bytes/ }]);
  const wrong = await post(`${w.base}/work/ENG-1/purge`, { confirm: 'ENG-2', project: 'OPS', reason: 'why' });
  t.same(
    (wrong.json?.problems as Json[]).map((p) => p.path),
    ['confirm', 'project'],
  );
  const badOp = await post(`${w.base}/work/ENG-1/purge`, {
    confirm: 'ENG-1',
    project: 'ENG',
    reason: 'r',
    op_id: 'a b',
  });
  t.equal(badOp.json?.error, 'op_id_invalid');
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, seq, 'nothing written by the refusals');
  t.equal((await call(`${w.base}/work/ENG-1`)).status, 200, 'still there');
  const ok = await post(`${w.base}/work/ENG-1/purge`, {
    confirm: 'ENG-1',
    project: 'ENG',
    reason: 'é'.repeat(300),
    op_id: 'p-1',
  });
  t.equal(ok.status, 200, '600 bytes is allowed');
  t.equal(ok.json?.op_id, 'p-1');
  t.match(ok.json?.position, /^SVC_WORK@1:/);
  t.equal((await call(`${w.base}/work/ENG-1`)).status, 404, 'gone');
  const again = await post(`${w.base}/work/ENG-1/purge`, {
    confirm: 'ENG-1',
    project: 'ENG',
    reason: 'r',
    op_id: 'p-1',
  });
  t.equal(again.json?.outcome, 'repeated', 'a retried purge answers its first outcome');
  const next = await post(`${w.base}/work`, { project: 'ENG', title: 'After' });
  t.equal(next.json?.key, 'ENG-2', 'a purged key is never handed out again');
});

t.test('purge: confirm names the item key in any case, as every /work key does', async (t) => {
  const w = await startWorkHarness(t);
  await post(`${w.base}/work`, { project: 'ENG', title: 'Typed in lower case' });
  const other = await post(`${w.base}/work/ENG-1/purge`, { confirm: 'eng-2', project: 'eng', reason: 'r' });
  t.equal(other.status, 400, 'another key in lower case is still another item');
  t.match(other.json?.problems, [{ path: 'confirm', message: /ENG-1/ }]);
  const lower = await post(`${w.base}/work/eng-1/purge`, { confirm: 'eng-1', project: 'eng', reason: 'r' });
  t.equal(lower.status, 200, JSON.stringify(lower.json));
  t.equal(lower.json?.key, 'ENG-1');
  t.equal((await call(`${w.base}/work/ENG-1`)).status, 404, 'purged');
});
