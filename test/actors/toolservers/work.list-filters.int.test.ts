/**
 * `work_list` takes the filters `GET /work` takes, with the same caps, and answers the route's rows
 * (ops/work-tracker.md "Seat tools"): status and group lists, type, priority, label and words (at most 500
 * characters, counted as code points), each read as the route reads its parameter, so an agent filters as
 * an operator does and acts on a row (its type, labels, due date, group, last change) without another read.
 */
import t, { type Test } from 'tap';
import { workTools, type WorkAccess } from '../../../actors/index.js';
import { sendCommand } from '../../../bus/index.js';
import { Commands } from '../../../schema/index.js';
import { call, OPS } from '../../http/fixtures/gateway-harness.js';
import { startWorkHarness } from '../../http/fixtures/work-harness.js';

interface Answer {
  items: Array<Record<string, unknown>>;
  total: number;
  next: string | null;
}

/** Items of several types, priorities, labels and statuses, made on the route; `list` runs `work_list`. */
async function tracker(t: Test) {
  const w = await startWorkHarness(t);
  const made = [
    { title: 'Login page', type: 'bug', priority: 'high', labels: ['ui'], status: 'todo' },
    { title: 'Billing export', type: 'feature', priority: 'low', labels: ['api'], status: 'in_progress' },
    { title: 'Dark mode', type: 'feature', priority: 'high', labels: ['ui', 'api'], status: 'in_review' },
    { title: 'Flaky test', type: 'chore', labels: [], status: 'done', due_date: '2027-01-15' },
    { title: 'Old idea', type: 'task', priority: 'urgent', labels: ['UI'], status: 'cancelled' },
  ];
  for (const body of made) {
    const r = await call(`${w.base}/work`, {
      method: 'POST',
      headers: { authorization: OPS, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'ENG', assignees: ['coder'], ...body }),
    });
    t.equal(r.status, 201, `made ${body.title}`);
  }
  const access: WorkAccess = {
    state: () => w.view.state(),
    write: (x) => sendCommand(w.bus, Commands.work.write, x),
    until: (seq, ms) => w.view.until(seq, ms),
  };
  const tools = new Map(workTools({ work: () => access }).map((tool) => [tool.entry.name, tool]));
  let n = 0;
  const list = async (args: Record<string, unknown>) => {
    const r = await tools
      .get('work_list')!
      .call({ seat: 'coder', agent_id: 'agent-coder', turn_id: 'turn-1', call_id: `c${n++}` }, args);
    return { error: r.is_error, text: r.content.map((c) => ('text' in c ? c.text : '')).join('') };
  };
  return { w, list };
}

t.test('work_list takes the filters of GET /work and answers its rows', async (t) => {
  const { w, list } = await tracker(t);
  const cases: Array<[string, Record<string, unknown>]> = [
    ['status=todo,in_review', { status: ['todo', 'in_review'] }],
    ['status=done', { status: 'done' }],
    ['group=active', { group: 'active' }],
    ['group=todo,closed', { group: ['todo', 'closed'] }],
    ['type=feature', { type: 'feature' }],
    ['priority=high', { priority: 'high' }],
    ['label=ui', { label: 'ui' }],
    ['label=UI', { label: 'UI' }],
    [
      'project=eng&group=active&label=api&q=dark',
      { project: 'eng', group: 'active', label: 'api', q: 'dark' },
    ],
    ['assignee=Coder&type=bug', { assignee: 'Coder', type: 'bug' }],
  ];
  for (const [query, args] of cases) {
    const route = await call(`${w.base}/work?${query}&limit=20`);
    t.equal(route.status, 200, route.text);
    const r = await list({ ...args, limit: 20 });
    t.equal(r.error, false, `${query}: ${r.text}`);
    const tool = JSON.parse(r.text) as Answer;
    t.ok(tool.items.length > 0, `${query} matches something`);
    t.same(tool.items, route.json?.['items'], `${query}: the route's rows, in its order`);
    t.equal(tool.total, route.json?.['total'], `${query}: the route's total`);
  }
  const row = (JSON.parse((await list({ status: 'done' })).text) as Answer).items[0]!;
  t.match(
    row,
    { key: 'ENG-4', type: 'chore', group: 'done', labels: [], due_date: '2027-01-15', updated_at: String },
    'a row says what the item is, where it stands and when it last changed',
  );

  const paged = await call(`${w.base}/work?priority=high&label=ui&limit=1`);
  const onward = JSON.parse(
    (await list({ priority: 'high', label: 'ui', limit: 1, cursor: paged.json?.['next'] })).text,
  ) as Answer;
  t.same(
    onward.items.map((i) => i['key']),
    ['ENG-1'],
    "a route's cursor under the new filters reads on in the tool",
  );
});

t.test('work_list caps q at 500 characters, counted as code points, as GET /work does', async (t) => {
  const { w, list } = await tracker(t);
  const longest = '🙂'.repeat(500);
  const route = await call(`${w.base}/work?q=${encodeURIComponent(longest)}`);
  t.equal(route.status, 200, '500 code points are taken by the route');
  const taken = await list({ q: longest });
  t.equal(taken.error, false, taken.text);
  t.same(JSON.parse(taken.text), { items: [], total: 0, next: null }, 'and by the tool');

  const over = `${'a'.repeat(500)}b`;
  const refused = await call(`${w.base}/work?q=${over}`);
  t.equal(refused.status, 400);
  t.equal(refused.json?.['error'], 'bad_params');
  const tool = await list({ q: over });
  t.equal(tool.error, true, 'the tool refuses 501 characters too');
  t.ok(
    tool.text.startsWith(`Refused (bad_params): ${String(refused.json?.['detail'])}`),
    `worded as the route: ${tool.text}`,
  );
});

t.test('work_list refuses a status or group outside its set, as the route does', async (t) => {
  const { list } = await tracker(t);
  for (const args of [{ status: ['todo', 'doing'] }, { group: 'open' }, { priority: 'highest' }]) {
    const r = await list(args);
    t.equal(r.error, true, JSON.stringify(args));
  }
});
