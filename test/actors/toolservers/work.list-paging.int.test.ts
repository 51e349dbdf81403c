/**
 * `work_list` pages as `GET /work` does (ops/work-tracker.md "Seat tools"): its answer is the route's
 * paging, `{items, total, next}`, and `cursor` (a previous answer's `next`, with the same filters) reads
 * on; a cursor of another list is refused `bad_params`. The two read one list, so a cursor either gave
 * pages the other.
 */
import t, { type Test } from 'tap';
import { workTools, type WorkAccess } from '../../../actors/index.js';
import { sendCommand } from '../../../bus/index.js';
import { Commands } from '../../../schema/index.js';
import { call } from '../../http/fixtures/gateway-harness.js';
import { startWorkHarness } from '../../http/fixtures/work-harness.js';

interface Answer {
  items: Array<{ key: string }>;
  total: number;
  next: string | null;
}

/** Six items (ENG-1..5, then OPS-1), made by a seat's tools; `list` runs `work_list` as that seat. */
async function seatTools(t: Test) {
  const w = await startWorkHarness(t);
  const access: WorkAccess = {
    state: () => w.view.state(),
    write: (x) => sendCommand(w.bus, Commands.work.write, x),
    until: (seq, ms) => w.view.until(seq, ms),
  };
  const tools = new Map(workTools({ work: () => access }).map((tool) => [tool.entry.name, tool]));
  let n = 0;
  const run = async (name: string, args: Record<string, unknown>) => {
    const r = await tools
      .get(name)!
      .call({ seat: 'coder', agent_id: 'agent-coder', turn_id: 'turn-1', call_id: `c${n++}` }, args);
    return { error: r.is_error, text: r.content.map((c) => ('text' in c ? c.text : '')).join('') };
  };
  for (const title of ['One', 'Two', 'Three', 'Four', 'Five']) {
    const made = await run('work_create', { project: 'ENG', title, assignees: ['coder'] });
    t.equal(made.error, false, made.text);
  }
  t.equal((await run('work_create', { project: 'OPS', title: 'Elsewhere' })).error, false);
  return { w, list: (args: Record<string, unknown>) => run('work_list', args) };
}

t.test('work_list pages a listing with cursor and next, as GET /work does', async (t) => {
  const { w, list } = await seatTools(t);
  const seen: string[] = [];
  let cursor: string | null = null;
  let calls = 0;
  do {
    const r = await list({ project: 'eng', limit: 2, ...(cursor === null ? {} : { cursor }) });
    t.equal(r.error, false, r.text);
    const answer = JSON.parse(r.text) as Answer;
    t.equal(answer.total, 5, 'total counts every match');
    seen.push(...answer.items.map((i) => i.key));
    cursor = answer.next;
    calls++;
  } while (cursor !== null && calls < 10);
  t.equal(calls, 3, 'two, two, then one');
  t.same(seen, ['ENG-5', 'ENG-4', 'ENG-3', 'ENG-2', 'ENG-1'], 'every item once, newest first');
  const route = await call(`${w.base}/work?project=ENG&limit=50`);
  t.same(
    seen,
    (route.json?.['items'] as Array<{ key: string }>).map((i) => i.key),
    'in the route order',
  );

  const none = JSON.parse((await list({ project: 'ENG', status: 'done' })).text) as Answer;
  t.same(none, { items: [], total: 0, next: null }, 'no match is an empty page, not a sentence');
});

t.test("a cursor of GET /work reads on in work_list and the tool's in the route", async (t) => {
  const { w, list } = await seatTools(t);
  const first = await call(`${w.base}/work?project=ENG&assignee=coder&limit=2`);
  t.equal(first.status, 200, first.text);
  const fromRoute = first.json?.['next'] as string;
  const onward = JSON.parse(
    (await list({ project: 'ENG', assignee: 'me', limit: 2, cursor: fromRoute })).text,
  ) as Answer;
  t.same(
    onward.items.map((i) => i.key),
    ['ENG-3', 'ENG-2'],
    "the route's cursor reads on in the tool (`me` is the seat the route names)",
  );
  const back = await call(
    `${w.base}/work?project=ENG&assignee=coder&limit=2&cursor=${encodeURIComponent(onward.next!)}`,
  );
  t.equal(back.status, 200, back.text);
  t.same(
    (back.json?.['items'] as Array<{ key: string }>).map((i) => i.key),
    ['ENG-1'],
    "the tool's cursor reads on in the route",
  );
  const status = await call(`${w.base}/work?status=backlog&limit=1`);
  const byStatus = JSON.parse(
    (await list({ status: 'backlog', limit: 1, cursor: status.json?.['next'] })).text,
  ) as Answer;
  t.same(
    byStatus.items.map((i) => i.key),
    ['ENG-5'],
    'a status is the list of one status',
  );
});

t.test('work_list refuses a cursor of another list bad_params, as the route does', async (t) => {
  const { w, list } = await seatTools(t);
  const one = JSON.parse((await list({ project: 'ENG', limit: 2 })).text) as Answer;
  const cases: Array<[string, Record<string, unknown>]> = [
    ['another project', { project: 'OPS', cursor: one.next }],
    ['other words', { project: 'ENG', q: 'one', cursor: one.next }],
    ['another assignee', { project: 'ENG', assignee: 'me', cursor: one.next }],
    ['altered', { project: 'ENG', cursor: `${one.next!.slice(0, -2)}AA` }],
    ['not a cursor', { project: 'ENG', cursor: 'nonsense' }],
  ];
  for (const [why, args] of cases) {
    const r = await list(args);
    t.equal(r.error, true, why);
    t.match(r.text, /^Refused \(bad_params\): `cursor`/, why);
  }
  const route = await call(`${w.base}/work?project=OPS&cursor=${encodeURIComponent(one.next!)}`);
  t.equal(route.status, 400);
  t.equal(route.json?.['error'], 'bad_params', 'the route refuses the same cursor alike');
});
