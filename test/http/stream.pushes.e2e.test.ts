/**
 * The read models' pushes as socket frames over a real listener (spec "WebSocket and snapshot"):
 * `sandboxes` when the set of runs not ended changes, `tokens` (with `budget` and the spending seat's
 * row) on the tick after spend, `tools` when the catalogue changes.
 */
import t from 'tap';
import { readQuestions } from '../../http/index.js';
import { ReadModels } from '../../projections/index.js';
import { companyDoc, event, spend } from '../projections/fixtures/readmodels.js';
import { dashboard, startEventsNode } from './fixtures/events-node.js';
import { call } from './fixtures/gateway-harness.js';

const now = Date.parse('2026-11-23T12:00:00Z');
const run = (status: string, at: string) => ({
  turn_id: 'turn-7',
  role: 'Dev One',
  agent_handle: 'dev-one',
  agent_id: 'agent-dev',
  coding_agent: 'coder',
  sandbox_id: 'sb-1',
  task: 'fix the build',
  status,
  started_at: '2026-11-23T11:00:00Z',
  question: status === 'awaiting_clarification' ? 'which branch?' : null,
  audience: status === 'awaiting_clarification' ? 'cto' : null,
  work_item: 'ENG-7',
  owner: 'cto',
  paused_at: null,
  ...(status === 'done' ? { ended_at: at, duration_ms: 60_000 } : {}),
});
const sandboxFields = [
  'turn_id',
  'role',
  'agent_handle',
  'agent_id',
  'coding_agent',
  'sandbox_id',
  'task',
  'status',
  'started_at',
  'question',
  'audience',
  'work_item',
  'owner',
  'paused_at',
];

t.test('sandboxes, tokens, budget and tools reach the socket as frames of their name', async (t) => {
  let tools: unknown[] = [];
  const models = new ReadModels({ now: () => now, placed: () => true, tools: () => tools });
  models.setCompany(companyDoc, 'rev-1');
  const { h, ws, events } = await startEventsNode(t, { questions: readQuestions(models) });
  for (const section of models.sections()) events.sections.register(section);
  const d = await dashboard(`${ws}/ws/stream`);
  t.teardown(() => d.client.close());
  await d.next((f) => f.kind === 'snapshot');

  models.applyEvent(
    event(
      'sandbox_run_started',
      'dev-one',
      run('awaiting_clarification', '2026-11-23T11:00:00Z'),
      '2026-11-23T11:00:00Z',
    ),
  );
  const started = await d.next((f) => f.kind === 'sandboxes');
  t.equal(started.data.length, 1, 'the run not ended is pushed');
  for (const field of sandboxFields) t.ok(field in started.data[0], `a sandbox row has ${field}`);
  t.match(started.data[0], { sandbox_id: 'sb-1', question: 'which branch?', audience: 'cto', owner: 'cto' });
  t.same(
    (await call(`${h.base}/stream/snapshot`)).json!['sandboxes'],
    started.data,
    'the snapshot holds what was pushed',
  );
  models.applyEvent(
    event('sandbox_run_completed', 'dev-one', run('done', '2026-11-23T11:01:00Z'), '2026-11-23T11:01:00Z'),
  );
  t.same((await d.next((f) => f.kind === 'sandboxes')).data, [], 'an ended run leaves the live set');

  models.applySpend(spend({ timestamp: '2026-11-23T11:30:00Z', total_tokens: 40 }));
  models.tick();
  const tokens = await d.next((f) => f.kind === 'tokens');
  t.match(tokens.data, { records: 1, totals: { total_tokens: 40, calls: 1 } });
  t.match((await d.next((f) => f.kind === 'budget')).data, { used: 40 });
  const row = await d.next((f) => f.kind === 'agents' && 'cto' in f.data);
  t.match(row.data.cto, { tokens: { total_tokens: 40, calls: 1 } }, "the seat's row moves with its spend");

  tools = [
    {
      name: 'say',
      description: 'Posts',
      source: 'builtin',
      annotations: {},
      delivers: null,
      input_schema: {},
    },
  ];
  models.toolsChanged();
  t.match((await d.next((f) => f.kind === 'tools')).data, [{ name: 'say', source: 'builtin' }]);
});
