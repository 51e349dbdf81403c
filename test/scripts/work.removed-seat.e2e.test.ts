/**
 * A seat removed from the company while items still name it (ops/work-tracker.md "Writes"), on a real
 * `svc serve` node: the item keeps `bob` in its assignees and watchers, and a client that reads the item
 * and sends a list back with one seat added is taken, on the REST PATCH and through a seat's
 * `work_update` alike. The writer checked every seat named, so the list just read was refused
 * `no seat "bob"` until the client dropped bob itself. A removed or unknown seat newly named is still
 * refused, and so is a held seat moved to another list or checklist entry.
 */
import t from 'tap';
import type { Step } from '../fixtures/llm/script.js';
import { call } from '../harness/api.js';
import { startWorkNode, workCompany } from './fixtures/work-company.js';

type Json = Record<string, unknown>;
const usage = { prompt_tokens: 10, completion_tokens: 5 };
const script: Step[] = [
  {
    kind: 'text',
    text: '{"decision":"plan","steps":["watch"],"success_criteria":["watching"],"tools":["work_update"]}',
    usage,
  },
  {
    kind: 'tool_calls',
    calls: [
      {
        id: 'w1',
        name: 'work_update',
        arguments: { item: 'ENG-1', watchers: ['bob', 'ada', 'dee', 'coder'] },
      },
    ],
    usage,
  },
  {
    kind: 'tool_calls',
    calls: [
      {
        id: 'w2',
        name: 'work_update',
        arguments: { item: 'ENG-1', watchers: ['bob', 'ada', 'dee', 'coder', 'zed'] },
      },
    ],
    usage,
  },
  { kind: 'text', text: 'Watching ENG-1.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"watching"}', usage },
];

const human = (handle: string) => ({
  name: handle.toUpperCase(),
  handle,
  kind: 'human',
  contact: { codehost_a_login: handle },
});

/** The work company with humans bob and dee beside ada and the agent coder, or without bob. */
function company(baseUrl: string, withBob: boolean): Json {
  const base = workCompany(baseUrl);
  const [unit] = base.units;
  const roles = [...unit!.roles, ...(withBob ? [human('bob')] : []), human('dee')];
  return { ...base, units: [{ ...unit, roles }] };
}

t.test('an item keeps a seat removed since, and the lists read back with one added are taken', async (t) => {
  const { node, llm } = await startWorkNode(t, script, (baseUrl) => company(baseUrl, true));
  const send = (method: string, path: string, body?: unknown) => call(node.url, method, path, body);

  const created = await send('POST', '/work', {
    project: 'ENG',
    title: 'Bob started this',
    status: 'in_progress',
    assignees: ['bob'],
    watchers: ['bob', 'ada'],
    checklist: [{ id: 'spec', text: 'Write the spec', done: false, assignee: 'bob' }],
  });
  t.equal(created.status, 201, JSON.stringify(created.body));

  const removed = await send('PUT', '/config', company(llm.baseUrl, false));
  t.equal(removed.status, 201, JSON.stringify(removed.body));
  await node.run.waitForLog(
    (l) => l.msg === 'config applied' && l['revision_id'] === removed.body['revision_id'],
  );
  const fresh = await send('POST', '/work', { project: 'ENG', title: 'For bob', watchers: ['bob'] });
  t.equal(fresh.status, 400, 'bob is no seat any more');
  t.match(fresh.body, { problems: [{ path: 'watchers.0', message: 'no seat "bob"' }] });

  const read = (await send('GET', '/work/ENG-1')).body;
  t.same(read['assignees'], ['bob'], 'the item keeps the removed seat');
  t.same(read['watchers'], ['bob', 'ada']);
  const watchers = read['watchers'] as string[];
  const added = await send('PATCH', '/work/ENG-1', { watchers: [...watchers, 'dee'] });
  t.equal(added.status, 200, JSON.stringify(added.body));
  t.match(added.body['item'], { watchers: ['bob', 'ada', 'dee'] }, 'bob stays beside the new watcher');

  const unknown = await send('PATCH', '/work/ENG-1', { watchers: ['bob', 'ada', 'dee', 'zed'] });
  t.equal(unknown.status, 400, 'a seat newly named that is none is still refused');
  t.match(unknown.body, {
    error: 'validation_error',
    problems: [{ path: 'watchers.3', message: 'no seat "zed"' }],
  });
  t.equal(unknown.body['problems'] && (unknown.body['problems'] as Json[]).length, 1, 'bob is no problem');
  const entries = read['checklist'] as Json[];
  const entry = { id: 'ship', text: 'Ship it', done: false, assignee: null };
  const ticked = await send('PATCH', '/work/ENG-1', { checklist: [...entries, entry] });
  t.equal(ticked.status, 200, 'the checklist read back with an entry added keeps bob on his entry');
  const handed = await send('PATCH', '/work/ENG-1', {
    checklist: [...entries, entry, { ...entry, id: 'test', assignee: 'bob' }],
  });
  t.equal(handed.status, 400, 'bob on another entry is newly named');
  t.match(handed.body, { problems: [{ path: 'checklist.2.assignee', message: 'no seat "bob"' }] });
  const moved = await send('PATCH', '/work/ENG-1', { asked_of: ['bob'] });
  t.equal(moved.status, 400, 'a held seat named in another list is newly named there');
  t.match(moved.body, { problems: [{ path: 'asked_of.0', message: 'no seat "bob"' }] });

  // Coder assigned beside bob wakes, and its work_update sends the watchers back with itself added.
  const assigned = await send('PATCH', '/work/ENG-1', { assignees: ['bob', 'coder'] });
  t.equal(assigned.status, 200, JSON.stringify(assigned.body));
  await node.run.waitForLog((l) => l.msg === 'turn completed');
  const item = (await send('GET', '/work/ENG-1')).body;
  t.same(item['assignees'], ['bob', 'coder']);
  t.same(item['watchers'], ['bob', 'ada', 'dee', 'coder'], "the seat's update is taken, bob kept");
  const told = JSON.stringify(llm.requests.map((r) => r.body));
  t.match(told, /Refused \(validation_error\)/, "the seat's update naming zed is refused");
  t.match(told, /watchers\.4/, 'at zed alone');
  t.notMatch(told, /no seat \\+"bob/, 'never for bob');
});
