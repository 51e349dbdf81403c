/**
 * The spec's Limits rows for a seat's reads, asked through a real listener of read models holding one row
 * past each: `/agents/{id}` shows the newest 50 `llm_history` rows, `/agents/{id}/memory` the newest 50
 * episodes, and `/tokens/breakdown` 50 `by_turn` rows unless `recent_turns` asks otherwise. The projection
 * tests hold the caps on the models; these hold the routes to them (a served node reaches 51 turns only by
 * running 51 turns).
 */
import t from 'tap';
import { queryRoutes, readModelRoutes, readQuestions } from '../../http/index.js';
import { ReadModels } from '../../projections/index.js';
import { companyDoc, event, phaseCompleted, spend } from '../projections/fixtures/readmodels.js';
import { call, startHarness } from './fixtures/gateway-harness.js';

type Rows = Array<Record<string, unknown>>;

const now = Date.parse('2026-11-23T12:00:00Z');
/** One past each cap. */
const ROWS = 51;
const stamp = (i: number): string => new Date(now - (ROWS - i) * 60_000).toISOString();

t.test('a seat read shows 50 history rows, 50 episodes and 50 recent turns, newest first', async (t) => {
  const models = new ReadModels({ now: () => now });
  models.setCompany(companyDoc, 'rev-1');
  for (let i = 0; i < ROWS; i += 1) {
    models.applyEvent(
      event('agent_phase_completed', 'cto', phaseCompleted(`turn-${i}`, 'plan', stamp(i)), stamp(i)),
    );
    models.applyEvent(
      event(
        'episode_recorded',
        'cto',
        {
          id: `ep${i}`,
          task_summary: 's',
          plan_summary: 'p',
          tool_sequence: [],
          skills_used: [],
          review_outcome: null,
          started_at: stamp(i),
          ended_at: stamp(i),
          duration_ms: 1,
          task_id: null,
          turn_id: `turn-${i}`,
          ask: 'ask',
          account: 'account',
        },
        stamp(i),
      ),
    );
    models.applySpend(spend({ turn_id: `turn-${i}`, timestamp: stamp(i), total_tokens: 1 }));
  }
  const h = await startHarness({
    routes: [...readModelRoutes(readQuestions(models)), ...queryRoutes(readQuestions(models))],
  });
  t.teardown(() => h.gw.close());
  const newest = (n: number, prefix: string) =>
    Array.from({ length: n }, (_, i) => `${prefix}${ROWS - 1 - i}`);

  const agent = await call(`${h.base}/agents/cto`);
  t.equal(agent.status, 200);
  t.same(
    (agent.json?.['llm_history'] as Rows).map((r) => r['turn_id']),
    newest(50, 'turn-'),
    'llm_history: the newest 50',
  );
  const memory = await call(`${h.base}/agents/cto/memory`);
  t.equal(memory.status, 200);
  t.same(
    (memory.json?.['episodes'] as Rows).map((r) => r['id']),
    newest(50, 'ep'),
    'episodes: the newest 50 by ended_at',
  );
  const turns = async (query: string): Promise<unknown[]> => {
    const answer = await call(`${h.base}/tokens/breakdown${query}`);
    t.equal(answer.status, 200, query);
    return (answer.json?.['by_turn'] as Rows).map((r) => r['turn_id']);
  };
  t.same(await turns(''), newest(50, 'turn-'), 'by_turn: 50 unless asked');
  t.equal((await turns('?recent_turns=51')).length, 51, 'recent_turns=51 shows all 51');
  t.equal((await turns('?recent_turns=3')).length, 3);
});
