/**
 * A seat removed from the company while items still name it (ops/work-tracker.md "Writes"), on a real
 * `svc serve` node: the item keeps `bob` in its assignees and watchers, and a client that reads the item
 * and sends a list back with one seat added is taken, on the REST PATCH and through a seat's
 * `work_update` alike. The writer checked every seat named, so the list just read was refused
 * `no seat "bob"` until the client dropped bob itself. A removed or unknown seat newly named is still
 * refused, and so is a held seat moved to another list or checklist entry.
 */
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import type { Step } from '../fixtures/llm/script.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { workCompany } from './fixtures/work-company.js';

type Json = Record<string, unknown>;
const auth = { authorization: `Bearer ${TOKEN}` };
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
  const llm = await startLlmServer({ wire: 'openai', script });
  t.teardown(() => llm.close());
  const node = await startNode(t, 'tracker: {backend: native}');
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${node.url}${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'removed seat' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };

  const put = await send('PUT', '/config', company(llm.baseUrl, true));
  t.equal(put.status, 201, JSON.stringify(put.json));
  await until(
    () => send('GET', '/work/projects'),
    (r) => (r.json['projects'] as Json[] | undefined)?.length === 1,
  );
  const created = await send('POST', '/work', {
    project: 'ENG',
    title: 'Bob started this',
    status: 'in_progress',
    assignees: ['bob'],
    watchers: ['bob', 'ada'],
    checklist: [{ id: 'spec', text: 'Write the spec', done: false, assignee: 'bob' }],
  });
  t.equal(created.status, 201, JSON.stringify(created.json));

  const removed = await send('PUT', '/config', company(llm.baseUrl, false));
  t.equal(removed.status, 201, JSON.stringify(removed.json));
  await node.run.waitForLog(
    (l) => l.msg === 'config applied' && l['revision_id'] === removed.json['revision_id'],
  );
  const fresh = await send('POST', '/work', { project: 'ENG', title: 'For bob', watchers: ['bob'] });
  t.equal(fresh.status, 400, 'bob is no seat any more');
  t.match(fresh.json, { problems: [{ path: 'watchers.0', message: 'no seat "bob"' }] });

  const read = (await send('GET', '/work/ENG-1')).json;
  t.same(read['assignees'], ['bob'], 'the item keeps the removed seat');
  t.same(read['watchers'], ['bob', 'ada']);
  const watchers = read['watchers'] as string[];
  const added = await send('PATCH', '/work/ENG-1', { watchers: [...watchers, 'dee'] });
  t.equal(added.status, 200, JSON.stringify(added.json));
  t.match(added.json['item'], { watchers: ['bob', 'ada', 'dee'] }, 'bob stays beside the new watcher');

  const unknown = await send('PATCH', '/work/ENG-1', { watchers: ['bob', 'ada', 'dee', 'zed'] });
  t.equal(unknown.status, 400, 'a seat newly named that is none is still refused');
  t.match(unknown.json, {
    error: 'validation_error',
    problems: [{ path: 'watchers.3', message: 'no seat "zed"' }],
  });
  t.equal(unknown.json['problems'] && (unknown.json['problems'] as Json[]).length, 1, 'bob is no problem');
  const entries = read['checklist'] as Json[];
  const entry = { id: 'ship', text: 'Ship it', done: false, assignee: null };
  const ticked = await send('PATCH', '/work/ENG-1', { checklist: [...entries, entry] });
  t.equal(ticked.status, 200, 'the checklist read back with an entry added keeps bob on his entry');
  const handed = await send('PATCH', '/work/ENG-1', {
    checklist: [...entries, entry, { ...entry, id: 'test', assignee: 'bob' }],
  });
  t.equal(handed.status, 400, 'bob on another entry is newly named');
  t.match(handed.json, { problems: [{ path: 'checklist.2.assignee', message: 'no seat "bob"' }] });
  const moved = await send('PATCH', '/work/ENG-1', { asked_of: ['bob'] });
  t.equal(moved.status, 400, 'a held seat named in another list is newly named there');
  t.match(moved.json, { problems: [{ path: 'asked_of.0', message: 'no seat "bob"' }] });

  // Coder assigned beside bob wakes, and its work_update sends the watchers back with itself added.
  const assigned = await send('PATCH', '/work/ENG-1', { assignees: ['bob', 'coder'] });
  t.equal(assigned.status, 200, JSON.stringify(assigned.json));
  await node.run.waitForLog((l) => l.msg === 'turn completed');
  const item = (await send('GET', '/work/ENG-1')).json;
  t.same(item['assignees'], ['bob', 'coder']);
  t.same(item['watchers'], ['bob', 'ada', 'dee', 'coder'], "the seat's update is taken, bob kept");
  const told = JSON.stringify(llm.requests.map((r) => r.body));
  t.match(told, /Refused \(validation_error\)/, "the seat's update naming zed is refused");
  t.match(told, /watchers\.4/, 'at zed alone');
  t.notMatch(told, /no seat \\+"bob/, 'never for bob');
});
