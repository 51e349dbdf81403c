import t from 'tap';
import { workTools, type WorkAccess } from '../../../actors/index.js';
import { sendCommand, Streams } from '../../../bus/index.js';
import { Commands } from '../../../schema/index.js';
import { OPS, call } from '../../http/fixtures/gateway-harness.js';
import { startWorkHarness } from '../../http/fixtures/work-harness.js';

type Json = Record<string, unknown>;

/** The seat's builtin work tools over the harness's tracker, by name. */
function seatTools(w: Awaited<ReturnType<typeof startWorkHarness>>) {
  const access: WorkAccess = {
    state: () => w.view.state(),
    write: (x) => sendCommand(w.bus, Commands.work.write, x),
    until: (seq, ms) => w.view.until(seq, ms),
  };
  return new Map(workTools({ work: () => access }).map((tool) => [tool.entry.name, tool]));
}

t.test('a seat lists, reads, creates, comments on and moves items with its builtin tools', async (t) => {
  const w = await startWorkHarness(t);
  const tools = seatTools(w);
  t.same(
    [...tools.keys()],
    ['work_list', 'work_get', 'work_create', 'work_update', 'work_comment', 'work_move'],
  );
  t.equal(tools.get('work_get')?.entry.delivers, null, 'reads deliver nothing');
  t.equal(tools.get('work_comment')?.entry.delivers, 'work_tracker', 'writes deliver to the tracker');
  const ctx = (call_id: string) => ({ seat: 'coder', agent_id: 'agent-coder', turn_id: 'turn-1', call_id });
  const run = async (name: string, args: Json, call_id = name) => {
    const result = await tools.get(name)!.call(ctx(call_id), args);
    const text = result.content.map((c) => ('text' in c ? c.text : '')).join('');
    return { error: result.is_error, text };
  };

  const created = await run('work_create', { project: 'ENG', title: 'From a seat', assignees: ['coder'] });
  t.equal(created.error, false, created.text);
  t.match(JSON.parse(created.text), { key: 'ENG-1', item: { status: 'backlog', assignees: ['coder'] } });
  const retried = await run('work_create', { project: 'ENG', title: 'From a seat', assignees: ['coder'] });
  t.equal(JSON.parse(retried.text).key, 'ENG-1', 'the same call retried changes the tracker once');
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, 1);

  t.equal((await run('work_comment', { item: 'ENG-1', body: 'Started.' })).error, false);
  t.equal((await run('work_move', { item: 'eng-1', to: 'in_progress' })).error, false);
  const bad = await run('work_move', { item: 'ENG-1', to: 'backlog' }, 'move-2');
  t.equal(bad.error, true);
  t.match(bad.text, /Refused \(validation_error\).*from in_progress: todo, in_review, done, cancelled/);
  t.equal((await run('work_update', { item: 'ENG-1', priority: 'high' })).error, false);

  const listed = await run('work_list', { assignee: 'me' });
  t.match(JSON.parse(listed.text), {
    items: [{ key: 'ENG-1', status: 'in_progress', priority: 'high' }],
    total: 1,
    next: null,
  });
  const lower = await run('work_list', { project: 'eng' });
  t.match(
    JSON.parse(lower.text),
    { items: [{ key: 'ENG-1' }] },
    'a project key in any case names the project',
  );
  const createdLower = await run('work_create', { project: 'eng', title: 'Lower key' }, 'create-lower');
  t.equal(createdLower.error, false, createdLower.text);
  t.match(
    JSON.parse(createdLower.text),
    { key: 'ENG-2' },
    'a create names its project in any case too, as POST /work does',
  );
  const got = await run('work_get', { item: 'ENG-1' });
  t.match(JSON.parse(got.text), { comments: [{ author: 'coder', body: 'Started.' }] });
  t.equal((await run('work_get', { item: 'ENG-9' })).error, true);
  t.equal((await run('work_create', { project: 'ENG' })).error, true, 'arguments are checked');

  const turns = await call(`${w.base}/work/turns?id=ENG-1`);
  t.match(
    turns.json?.turns,
    [{ turn_id: 'turn-1', seat: 'coder', changes: 4 }],
    'the turn is recorded on the item',
  );

  // The HTTP writes' text rules: a body keeps tabs and line breaks but no NUL or lone surrogate; a label no control character.
  const seqBefore = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  for (const [name, args] of [
    ['work_comment', { item: 'ENG-1', body: 'a\u0000b' }],
    ['work_comment', { item: 'ENG-1', body: 'half \ud800 pair' }],
    ['work_update', { item: 'ENG-1', description: 'nul\u0000' }],
    ['work_update', { item: 'ENG-1', labels: ['tab\there'] }],
    ['work_create', { project: 'ENG', title: 'Body', description: 'x\u0000' }],
  ] as const) {
    const refusedText = await run(name, args, `${name}-${JSON.stringify(args)}`);
    t.equal(refusedText.error, true, `${name} ${JSON.stringify(args)} is refused`);
  }
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, seqBefore, 'nothing refused was recorded');
  const kept = await run('work_comment', { item: 'ENG-1', body: 'line one\n\tline two' }, 'kept');
  t.equal(kept.error, false, 'tabs and line breaks stay in a body');

  const none = workTools({ work: () => null });
  const refused = await none[0]!.call(ctx('x'), {});
  t.equal(refused.is_error, true, 'no tracker: the tool says so');
});

t.test(
  'a seat named in any case by the tools is that seat, kept lower-case, as on the REST writes',
  async (t) => {
    const w = await startWorkHarness(t);
    const tools = seatTools(w);
    const run = async (name: string, args: Json) => {
      const result = await tools
        .get(name)!
        .call({ seat: 'coder', agent_id: 'a', turn_id: 't', call_id: name }, args);
      return {
        error: result.is_error,
        text: result.content.map((c) => ('text' in c ? c.text : '')).join(''),
      };
    };
    const created = await run('work_create', { project: 'ENG', title: 'Cased', assignees: ['Coder'] });
    t.equal(created.error, false, created.text);
    t.match(JSON.parse(created.text), { item: { assignees: ['coder'] } });
    const updated = await run('work_update', {
      item: 'ENG-1',
      assignees: ['Ada', 'coder'],
      watchers: ['BOB'],
    });
    t.equal(updated.error, false, updated.text);
    t.same((await call(`${w.base}/work/ENG-1`)).json?.watchers, ['bob']);
    const listed = await run('work_list', { assignee: 'ADA' });
    t.match(
      JSON.parse(listed.text),
      { items: [{ key: 'ENG-1' }] },
      'the list filter names the seat in any case too',
    );
  },
);

t.test(
  'work_update clears a field with null as PATCH /work/{id} does, and refuses null for title, type, status and project naming what to do instead',
  async (t) => {
    const w = await startWorkHarness(t);
    const tools = seatTools(w);
    const run = async (args: Json, call_id: string) => {
      const result = await tools
        .get('work_update')!
        .call({ seat: 'coder', agent_id: 'a', turn_id: 't', call_id }, args);
      return {
        error: result.is_error,
        text: result.content.map((c) => ('text' in c ? c.text : '')).join('\n'),
      };
    };
    const full = {
      project: 'ENG',
      title: 'Full',
      description: 'Long text',
      priority: 'high',
      assignees: ['coder'],
      watchers: ['bob'],
      labels: ['ui'],
    };
    const headers = { authorization: OPS, 'content-type': 'application/json' };
    for (const _ of [1, 2])
      t.equal(
        (await call(`${w.base}/work`, { method: 'POST', headers, body: JSON.stringify(full) })).status,
        201,
      );
    const cleared = { description: null, priority: null, assignees: null, watchers: null, labels: null };
    const byTool = await run({ item: 'ENG-1', ...cleared }, 'clear');
    t.equal(byTool.error, false, byTool.text);
    const byPatch = await call(`${w.base}/work/ENG-2`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify(cleared),
    });
    t.equal(byPatch.status, 200, byPatch.text);
    const fields = (item: unknown) => {
      const { description, priority, assignees, watchers, labels, title } = item as Json;
      return { title, description, priority, assignees, watchers, labels };
    };
    const one = (await call(`${w.base}/work/ENG-1`)).json;
    t.same(fields(one), {
      title: 'Full',
      description: '',
      priority: 'none',
      assignees: [],
      watchers: [],
      labels: [],
    });
    t.same(
      fields(one),
      fields((await call(`${w.base}/work/ENG-2`)).json),
      'the same item as the PATCH leaves',
    );

    const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
    for (const [name, hint] of [
      ['title', /send a new title/],
      ['type', /type/],
      ['status', /work_move/],
      ['project', /project it was created in/],
    ] as const) {
      const refused = await run({ item: 'ENG-1', [name]: null, description: 'changed' }, `kept-${name}`);
      t.equal(refused.error, true, name);
      t.match(refused.text, new RegExp(`^Refused \\(validation_error\\): ${name} cannot be removed`), name);
      t.match(refused.text, hint, `${name}: says what to do instead`);
      t.match(refused.text, new RegExp(`"path":"${name}"`), `${name}: named in the problems`);
    }
    const badRest = await run({ item: 'ENG-1', title: null, priority: 'urgent-ish' }, 'kept-bad-rest');
    t.match(
      badRest.text,
      /^invalid arguments for work_update:/,
      'the rest of the arguments is checked first',
    );
    t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing refused was recorded');
  },
);
