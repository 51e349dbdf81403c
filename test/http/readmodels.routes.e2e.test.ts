import t from 'tap';
import { queryRoutes, readModelRoutes, readQuestions } from '../../http/index.js';
import { ReadModels } from '../../projections/index.js';
import {
  companyDoc,
  event,
  phaseCompleted,
  phaseStarted,
  planted,
  spend,
} from '../projections/fixtures/readmodels.js';
import { call, startHarness } from './fixtures/gateway-harness.js';

const now = Date.parse('2026-11-23T12:00:00Z');

t.test('read routes answer from the read models through a real listener', async (t) => {
  const models = new ReadModels({
    now: () => now,
    tools: () => [
      {
        name: 'say',
        description: 'Posts',
        source: 'builtin',
        annotations: {},
        delivers: 'chat',
        input_schema: {},
      },
    ],
  });
  models.setCompany(companyDoc, 'rev-1');
  models.applyEvent(event('agent_phase_started', 'cto', phaseStarted('turn-1'), '2026-11-23T10:00:00Z'));
  models.applyEvent(
    event(
      'agent_phase_completed',
      'cto',
      phaseCompleted('turn-0', 'plan', '2026-11-23T09:00:00Z'),
      '2026-11-23T09:00:00Z',
    ),
  );
  models.applyEvent(
    event(
      'episode_recorded',
      'cto',
      {
        id: 'ep1',
        task_summary: 's',
        plan_summary: 'p',
        tool_sequence: [],
        skills_used: [],
        review_outcome: null,
        started_at: '2026-11-23T08:00:00Z',
        ended_at: '2026-11-23T08:10:00Z',
        duration_ms: 600000,
        task_id: null,
        turn_id: null,
        ask: 'full ask',
        account: 'full account',
      },
      '2026-11-23T08:10:00Z',
    ),
  );
  models.applySpend(spend({ timestamp: '2026-11-23T11:00:00Z' }));
  const h = await startHarness({
    routes: [...readModelRoutes(readQuestions(models)), ...queryRoutes(readQuestions(models))],
  });
  t.teardown(() => h.gw.close());

  const agents = await call(`${h.base}/agents`);
  t.equal(agents.status, 200);
  t.same(
    (JSON.parse(agents.text) as Array<{ id: string }>).map((r) => r.id),
    ['ceo', 'cto', 'dev-one'],
    'human seats excluded',
  );

  const cto = await call(`${h.base}/agents/cto`);
  t.equal(cto.status, 200);
  t.match(cto.json, {
    id: 'cto',
    activity: 'working',
    live_call: { turn_id: 'turn-1', in_progress: true },
    coverage: { complete: true },
  });
  t.equal((cto.json!['llm_history'] as unknown[]).length, 1);
  t.equal((await call(`${h.base}/agents/CTO`)).json!['id'], 'cto', 'role name accepted');
  const missing = await call(`${h.base}/agents/nobody`);
  t.equal(missing.status, 404);
  t.equal(missing.json!['error'], 'not_found');
  t.equal((await call(`${h.base}/agents/dana`)).status, 404, 'a human seat is not an agent');

  const activity = await call(`${h.base}/agents/activity?days=3`);
  t.equal(activity.status, 200, '/agents/activity is not taken for a seat id');
  t.equal(activity.json!['days'], 3);

  const memory = await call(`${h.base}/agents/cto/memory`);
  t.match(memory.json, {
    handle: 'cto',
    episodes: [{ id: 'ep1' }],
    personal_memories: { long: [], short: [] },
  });
  t.equal((await call(`${h.base}/agents/nobody/memory`)).status, 404);
  t.match((await call(`${h.base}/agents/cto/memory/episodes/ep1`)).json, {
    ask: 'full ask',
    account: 'full account',
  });
  t.equal((await call(`${h.base}/agents/cto/memory/episodes/zzz`)).status, 404);
  // A long id is cut in the detail to 80 characters, as the work routes cut theirs.
  const long = 'x'.repeat(5000);
  for (const path of [
    `/agents/${long}`,
    `/agents/${long}/memory`,
    `/agents/${long}/memory/episodes/ep1`,
    `/agents/cto/memory/episodes/${long}`,
  ]) {
    const refused = await call(`${h.base}${path}`);
    t.equal(refused.status, 404, path.slice(0, 40));
    const detail = String(refused.json!['detail']);
    t.ok(detail.includes(`"${'x'.repeat(80)}…"`) && detail.length < 200, `cut: ${detail.slice(0, 120)}`);
  }

  const breakdown = await call(`${h.base}/tokens/breakdown?since_days=500`);
  t.match(breakdown.json, { since_days: 30, totals: { calls: 1 } });
  t.equal((await call(`${h.base}/tokens/series?bucket=week`)).status, 200);
  const bad = await call(`${h.base}/tokens/series?bucket=fortnight`);
  t.equal(bad.status, 400);
  t.equal(bad.json!['error'], 'bad_params');

  t.match((await call(`${h.base}/budgets`)).json, { org: { cap: 1000, used: 15 }, refused: [] });
  const tools = await call(`${h.base}/tools`);
  t.same(
    (JSON.parse(tools.text) as Array<{ name: string }>).map((x) => x.name),
    ['say'],
  );
  t.match((await call(`${h.base}/sandbox-runs`)).json, { runs: [] });

  const org = await call(`${h.base}/org`);
  t.equal(org.status, 200);
  for (const secret of planted) t.notOk(org.text.includes(secret), `org carries no ${secret}`);

  // A question about one seat (or one episode) asked without naming it is a bad parameter, not an absent seat.
  for (const [q, needs] of [
    ['agent', 'id'],
    ['agent?id=', 'id'],
    ['memory', 'id'],
    ['episode?episode=ep1', 'id'],
    ['episode?id=cto', 'episode'],
  ] as const) {
    const unnamed = await call(`${h.base}/query/${q}`);
    t.equal(unnamed.status, 400, q);
    t.match(unnamed.json, { error: 'bad_params', detail: new RegExp(`needs ${needs}`) }, q);
  }

  const viaQuery = await call(`${h.base}/query/agent?id=cto`);
  t.equal(viaQuery.json!['id'], 'cto', 'the same answer under /query');
  t.equal((await call(`${h.base}/query/org`)).text, org.text);
});
