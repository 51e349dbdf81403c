/**
 * A seat assigned an item through the API, on a real `svc serve` node with the native tracker and the
 * local fake model: the assignment wakes the seat, its turn comments on the item and moves it to done with
 * the builtin `work_*` tools, and `TaskAssigned` and `TaskCompleted` appear in `/events`.
 */
import t from 'tap';
import type { Step } from '../fixtures/llm/script.js';
import { call } from '../harness/api.js';
import { until } from '../harness/until.js';
import { startWorkNode } from './fixtures/work-company.js';

type Json = Record<string, unknown>;
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
  const { node } = await startWorkNode(t, script);
  const send = (method: string, path: string, body?: unknown) => call(node.url, method, path, body);

  const created = await send('POST', '/work', {
    project: 'ENG',
    title: 'Fix the login',
    status: 'in_progress',
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const assigned = await send('PATCH', '/work/ENG-1', { assignees: ['coder'] });
  t.equal(assigned.status, 200, JSON.stringify(assigned.body));
  const done = await node.run.waitForLog((l) => l.msg === 'turn completed');
  t.ok(done, 'the woken turn completed');

  const item = (await send('GET', '/work/ENG-1')).body;
  t.equal(item['status'], 'done', JSON.stringify(item));
  t.match(item['thread'], [{ author: 'coder', body: 'Shipped the fix.' }]);
  const turns = (await send('GET', '/work/turns?id=ENG-1')).body;
  t.match(turns['turns'], [{ seat: 'coder', changes: 2 }], 'the turn is recorded on the item');
  const events = await until(
    () => send('GET', '/events?limit=400'),
    (r) => (r.body['rows'] as Json[]).some((row) => row['type'] === 'TaskCompleted'),
  );
  const rows = events.body['rows'] as Json[];
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
