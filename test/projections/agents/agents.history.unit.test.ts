import t from 'tap';
import { seedBound } from '../../../projections/agents/agents.projection.js';
import {
  agentModels,
  companyDoc,
  event,
  phaseCompleted,
  phaseStarted,
  turnCompleted,
} from '../fixtures/readmodels.js';

const models = agentModels;

t.test('llm_history is newest first, deduplicated, every field kept, at most 50 rows', async (t) => {
  const m = models();
  const stamp = (i: number) => new Date(Date.parse('2026-11-23T00:00:00Z') + i * 60_000).toISOString();
  // Arrive out of order: odd minutes first, then even.
  const order = [
    ...Array.from({ length: 60 }, (_, i) => i).filter((i) => i % 2 === 1),
    ...Array.from({ length: 60 }, (_, i) => i).filter((i) => i % 2 === 0),
  ];
  for (const i of order)
    m.applyEvent(
      event('agent_phase_completed', 'cto', phaseCompleted(`turn-${i}`, 'plan', stamp(i)), stamp(i)),
    );
  // A replayed duplicate does not add a row.
  m.applyEvent(
    event('agent_phase_completed', 'cto', phaseCompleted('turn-59', 'plan', stamp(59)), stamp(59)),
  );
  const history = m.agent('cto')!.llm_history as Array<Record<string, unknown>>;
  t.equal(history.length, 50);
  t.same(
    history.map((h) => h['turn_id']),
    Array.from({ length: 50 }, (_, i) => `turn-${59 - i}`),
  );
  const row = history[0]!;
  for (const key of [
    'turn_id',
    'phase',
    'iteration',
    'model',
    'response',
    'tool_executions',
    'round_narration',
    'partial_round',
    'total_tokens',
    'timestamp',
    'failed',
    'duration_ms',
    'started_at',
    'rounds',
    'cache_read_tokens',
    'cache_write_tokens',
    'max_rounds',
    'round_ceiling',
    'host_round',
    'launch_id',
    'work_item',
    'steers',
    'cost_usd',
  ])
    t.ok(key in row, key);
  t.notOk('system_prompt' in row, 'the system prompt is not a history field');
  t.match((row['tool_executions'] as unknown[])[0], {
    started_at: String,
    duration_ms: 12,
    origin: 'mcp:files',
    server: 'files',
  });
  t.match((row['rounds'] as unknown[])[0], {
    round: 0,
    cache_read_tokens: 5,
    cache_write_tokens: 1,
    tool_calls: ['read_file'],
  });
});

const sandboxRun = (status: string, extra: Record<string, unknown>) => ({
  turn_id: 'turn-7',
  role: 'Dev One',
  agent_handle: 'dev-one',
  agent_id: 'x',
  coding_agent: 'coder',
  sandbox_id: 'sb-1',
  task: 'fix',
  status,
  started_at: '2026-11-23T09:00:00Z',
  question: null,
  audience: null,
  work_item: null,
  owner: null,
  paused_at: null,
  ended_at: '2026-11-23T09:10:00Z',
  duration_ms: 600000,
  ...extra,
});

t.test('a detached coding run is a history row with phase sandbox', async (t) => {
  const m = models();
  m.applyEvent(
    event(
      'sandbox_run_completed',
      undefined,
      sandboxRun('done', { summary: 'fixed' }),
      '2026-11-23T09:10:00Z',
    ),
  );
  t.match(m.agent('dev-one')!.llm_history[0], {
    phase: 'sandbox',
    response: 'fixed',
    launch_id: 'sb-1',
    duration_ms: 600000,
    failed: false,
  });
});

t.test('a cancelled coding run is a failed history row carrying who stopped it', async (t) => {
  const m = models();
  const error = 'cancelled by ops: wrong branch';
  m.applyEvent(
    event('sandbox_run_cancelled', undefined, sandboxRun('cancelled', { error }), '2026-11-23T09:10:00Z'),
  );
  t.match(m.agent('dev-one')!.llm_history[0], {
    phase: 'sandbox',
    response: error,
    launch_id: 'sb-1',
    failed: true,
  });
});

t.test('boot seeding keeps the newest three turns per seat', async (t) => {
  const records = [];
  for (let i = 0; i < 5; i += 1) {
    const at = `2026-11-23T0${i}:00:00Z`;
    records.push(event('agent_phase_completed', 'cto', phaseCompleted(`turn-${i}`, 'plan', at), at));
    records.push(event('agent_phase_completed', 'ceo', phaseCompleted(`other-${i}`, 'plan', at), at));
  }
  records.push(
    event(
      'agent_paused',
      'cto',
      { paused: { by: 'a', at: 'b', reason: 'c', stop_running: false } },
      '2026-11-23T00:00:00Z',
    ),
  );
  const kept = seedBound(records);
  const turns = (h: string) =>
    kept
      .filter((e) => e.agent_id === h && e.type === 'agent_phase_completed')
      .map((e) => e.payload['turn_id']);
  t.same(turns('cto'), ['turn-2', 'turn-3', 'turn-4']);
  t.same(turns('ceo'), ['other-2', 'other-3', 'other-4']);
  t.ok(
    kept.some((e) => e.type === 'agent_paused'),
    'events without a turn are kept',
  );
});

t.test('merge overlays carry the whole row with stopped_reason, paused and live_call', async (t) => {
  const m = models();
  const agents = m.sections().find((s) => s.name === 'agents')!;
  const pushes: Array<{ data: unknown; mode: string }> = [];
  agents.subscribe((data, mode) => pushes.push({ data, mode }));
  m.applyEvent(event('agent_phase_started', 'cto', phaseStarted('turn-1'), '2026-11-23T10:00:00Z'));
  t.equal(pushes.length, 1);
  t.equal(pushes[0]!.mode, 'merge');
  const overlay = (pushes[0]!.data as Record<string, Record<string, unknown>>)['cto']!;
  for (const key of ['stopped_reason', 'paused', 'live_call']) t.ok(key in overlay, key);
  t.equal(overlay['paused'], null);
  t.ok(Object.keys(agents.current() as object).includes('cto'));
});

t.test(
  'activity counts turns, first-pass rate over reviewed turns, quantiles and a company-day series',
  async (t) => {
    const m = models();
    const done = (
      id: string,
      at: string,
      duration: number,
      review?: { reviewed: boolean; passed_first: boolean | null; attempts: number },
    ) =>
      m.applyEvent(
        event(
          'agent_turn_completed',
          'cto',
          turnCompleted(id, at, { duration_ms: duration, ...(review ? { review } : {}) }),
          at,
        ),
      );
    done('a', '2026-11-23T08:00:00Z', 1000, { reviewed: true, passed_first: true, attempts: 1 });
    done('b', '2026-11-23T09:00:00Z', 3000, { reviewed: true, passed_first: false, attempts: 2 });
    done('c', '2026-11-22T09:00:00Z', 2000);
    // 23:30Z on the 21st is already the 22nd in Berlin.
    done('d', '2026-11-21T23:30:00Z', 4000, { reviewed: true, passed_first: true, attempts: 1 });
    done('d', '2026-11-21T23:30:00Z', 4000, { reviewed: true, passed_first: true, attempts: 1 });
    const answer = m.activity(new URLSearchParams('days=3'));
    const cto = answer.seats.find((s) => s.id === 'cto')!;
    t.equal(cto.turns, 4, 'a replayed completion counts once');
    t.equal(cto.reviewed, 3);
    t.equal(cto.first_pass_rate, 2 / 3);
    t.same(cto.duration_ms, { p50: 2000, p90: 4000, max: 4000 });
    t.same(
      cto.series.map((d) => [d.day, d.turns]),
      [
        ['2026-11-21', 0],
        ['2026-11-22', 2],
        ['2026-11-23', 2],
      ],
    );
    t.equal(m.activity(new URLSearchParams('days=500')).days, 30, 'days clamps to 30');
  },
);

t.test('/agents/{id} by role name finds the agent seat even when a human seat has that handle', async (t) => {
  const m = models();
  // The human seat's handle is `dana`; an agent seat is named `dana` (its handle is another).
  m.setCompany(
    { ...companyDoc, roles: [...(companyDoc.roles ?? []), { name: 'dana', handle: 'dana-bot' }] },
    'rev-2',
  );
  t.equal(m.agent('dana')?.id, 'dana-bot', 'the agent named dana');
  t.equal(m.agent('Dana'), null, 'the human seat by its own name is still no agent');
});

t.test('the activity day series sums to the totals: a pass counts only on a reviewed turn', async (t) => {
  const m = models();
  const at = '2026-11-23T08:00:00Z';
  const review = { reviewed: false, passed_first: true, attempts: 0 };
  m.applyEvent(event('agent_turn_completed', 'cto', turnCompleted('u', at, { duration_ms: 1, review }), at));
  const cto = m.activity(new URLSearchParams('days=1')).seats.find((s) => s.id === 'cto')!;
  t.same([cto.turns, cto.reviewed, cto.passed_first], [1, 0, 0]);
  t.same(
    cto.series.map((d) => [d.turns, d.reviewed, d.passed_first]),
    [[1, 0, 0]],
    'the day agrees with the totals',
  );
});

t.test('a runaway model answer is shown to 64 KiB, saying how much more the event holds', async (t) => {
  const m = models();
  const huge = 'x'.repeat(3_000_000);
  m.applyEvent(
    event('agent_phase_completed', 'cto', { ...phaseCompleted('turn-9', 'plan', '2026-11-23T10:00:00Z'), response: huge }, '2026-11-23T10:00:00Z'), // prettier-ignore
  );
  const row = m.agent('cto')!;
  for (const shown of [row.llm_history[0]!.response, row.live_call!.response]) {
    t.ok(shown.length < 66 * 1024, `${shown.length} characters shown`);
    t.match(
      shown,
      /… \[2934464 more characters: the phase's agent_phase_completed event holds the whole answer\]$/,
    );
  }
});
