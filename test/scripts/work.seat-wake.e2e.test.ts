/**
 * A seat assigned an item through the API, on a real `svc serve` node with the native tracker and the
 * local fake model: the assignment wakes the seat, its turn comments on the item and moves it to done with
 * the builtin `work_*` tools, and `TaskAssigned` and `TaskCompleted` appear in `/events`.
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
    text: '{"decision":"plan","steps":["comment","finish"],"success_criteria":["done"],"tools":["work_comment","work_move"]}',
    usage,
  },
  {
    kind: 'tool_calls',
    calls: [{ id: 'c1', name: 'work_comment', arguments: { item: 'ENG-1', body: 'Shipped the fix.' } }],
    usage,
  },
  {
    kind: 'tool_calls',
    calls: [{ id: 'm1', name: 'work_move', arguments: { item: 'ENG-1', to: 'done' } }],
    usage,
  },
  { kind: 'text', text: 'Commented on ENG-1 and moved it to done.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"moved"}', usage },
];

t.test('an assigned seat wakes, comments on the item and moves it to done', async (t) => {
  const llm = await startLlmServer({ wire: 'openai', script });
  t.teardown(() => llm.close());
  const node = await startNode(t, 'tracker: {backend: native}');
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${node.url}${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'seat wake' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };
  const company = workCompany(llm.baseUrl);
  const put = await send('PUT', '/config', company);
  t.equal(put.status, 201, JSON.stringify(put.json));
  await until(
    () => send('GET', '/work/projects'),
    (r) => (r.json['projects'] as Json[] | undefined)?.length === 1,
  );

  const created = await send('POST', '/work', {
    project: 'ENG',
    title: 'Fix the login',
    status: 'in_progress',
  });
  t.equal(created.status, 201, JSON.stringify(created.json));
  const assigned = await send('PATCH', '/work/ENG-1', { assignees: ['coder'] });
  t.equal(assigned.status, 200, JSON.stringify(assigned.json));
  const done = await node.run.waitForLog((l) => l.msg === 'turn completed');
  t.ok(done, 'the woken turn completed');

  const item = (await send('GET', '/work/ENG-1')).json;
  t.equal(item['status'], 'done', JSON.stringify(item));
  t.match(item['thread'], [{ author: 'coder', body: 'Shipped the fix.' }]);
  const turns = (await send('GET', '/work/turns?id=ENG-1')).json;
  t.match(turns['turns'], [{ seat: 'coder', changes: 2 }], 'the turn is recorded on the item');
  const events = await until(
    () => send('GET', '/events?limit=400'),
    (r) => (r.json['rows'] as Json[]).some((row) => row['type'] === 'TaskCompleted'),
  );
  const rows = events.json['rows'] as Json[];
  t.match(
    rows.find((row) => row['type'] === 'TaskAssigned'),
    { actor: 'ada', agent_id: 'coder' },
  );
  t.match(
    rows.find((row) => row['type'] === 'TaskCompleted'),
    { actor: 'coder' },
  );
  t.ok(
    rows.some((row) => row['type'] === 'agent_turn_completed' && row['agent_id'] === 'coder'),
    'the turn completed on the event log',
  );
});
