/**
 * One agent row, every place it is read (spec "Agent row", "WebSocket and snapshot"): `/agents`,
 * `/agents/{id}`, the snapshot's `agents` and the socket's overlay frame carry the same row, with every
 * field the spec names and `paused` as `{by, at, reason, stop_running}`.
 */
import t from 'tap';
import { readModelRoutes, readQuestions } from '../../http/index.js';
import { ReadModels } from '../../projections/index.js';
import {
  agentRowFields,
  companyDoc,
  event,
  liveCallFields,
  phaseStarted,
} from '../projections/fixtures/readmodels.js';
import { dashboard, startEventsNode } from './fixtures/events-node.js';
import { call } from './fixtures/gateway-harness.js';

const now = Date.parse('2026-11-23T12:00:00Z');

t.test('an agent row reads the same in /agents, /agents/{id}, the snapshot and the socket', async (t) => {
  const models = new ReadModels({ now: () => now, placed: () => true });
  models.setCompany(companyDoc, 'rev-1');
  const questions = readQuestions(models);
  const { h, ws, events } = await startEventsNode(t, { questions, routes: (q) => readModelRoutes(q) });
  for (const section of models.sections()) events.sections.register(section);
  const d = await dashboard(`${ws}/ws/stream`);
  t.teardown(() => d.client.close());
  const first = await d.next((f) => f.kind === 'snapshot');
  t.ok('cto' in first.data.agents, 'the first frame holds the row');

  models.applyEvent(event('agent_phase_started', 'cto', phaseStarted('turn-1'), '2026-11-23T10:00:00Z'));
  const paused = { by: 'op-1', at: '2026-11-23T10:00:05Z', reason: 'look first', stop_running: false };
  models.applyEvent(event('agent_paused', 'cto', { paused }, '2026-11-23T10:00:05Z'));
  const frame = await d.next((f) => f.kind === 'agents' && f.data.cto?.paused !== null && 'cto' in f.data);
  const pushed = frame.data.cto as Record<string, unknown>;

  const listed = ((await call(`${h.base}/agents`)).json as unknown as Array<Record<string, unknown>>).find(
    (r) => r['id'] === 'cto',
  )!;
  const { llm_history: history, coverage, ...one } = (await call(`${h.base}/agents/cto`)).json!;
  const snapshot = ((await call(`${h.base}/stream/snapshot`)).json!['agents'] as Record<string, unknown>)[
    'cto'
  ] as Record<string, unknown>;

  for (const field of agentRowFields) t.ok(field in listed, `the row has ${field}`);
  t.same(one, listed, '/agents/{id} is the /agents row plus llm_history and coverage');
  t.ok(Array.isArray(history));
  t.match(coverage, { complete: true });
  t.same(snapshot, listed, 'the snapshot holds the same row');
  t.same(pushed, listed, 'the socket overlay carries the same row');
  t.same(listed['paused'], paused, 'paused is {by, at, reason, stop_running}');
  t.equal(listed['activity'], 'working', 'a pause without stop_running lets the turn run');
  const live = listed['live_call'] as Record<string, unknown>;
  for (const field of liveCallFields) t.ok(field in live, `live_call has ${field}`);
  t.equal(live['in_progress'], true);
});
