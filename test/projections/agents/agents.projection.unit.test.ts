import t from 'tap';
import { seedBound } from '../../../projections/agents/agents.projection.js';
import { activityOf } from '../../../projections/agents/agents.rows.js';
import { ReadModels } from '../../../projections/index.js';
import type { SeatRuntime } from '../../../projections/agents/agents.state.js';
import {
  agentRowFields,
  companyDoc,
  event,
  liveCallFields,
  phaseCompleted,
  phaseStarted,
  spend,
  turnCompleted,
} from '../fixtures/readmodels.js';

const now = Date.parse('2026-11-23T12:00:00Z');
function models(opts: { placed?: (h: string) => boolean } = {}): ReadModels {
  const m = new ReadModels({ now: () => now, ...opts });
  m.setCompany(companyDoc, 'rev-1');
  return m;
}

t.test('agent rows carry every listed field; human seats are not agents', async (t) => {
  const m = models();
  const rows = m.agentList();
  t.same(
    rows.map((r) => r.id),
    ['ceo', 'cto', 'dev-one'],
  );
  const cto = rows.find((r) => r.id === 'cto')!;
  for (const key of agentRowFields) t.ok(key in cto, key);
  t.equal(cto.role, 'CTO');
  t.match(cto.agent_id, /^[0-9a-f-]{36}$/);
  t.equal(cto.activity, 'idle');
  t.equal(m.agent('dana'), null, 'a human seat has no agent view');
  t.equal(m.agent('CTO')?.id, 'cto', 'the role name is accepted');
  t.equal(m.agent('nobody'), null);
});

t.test(
  'a phase in flight is working with a live call; progress fills it; between turns it is null',
  async (t) => {
    const m = models();
    m.applyEvent(event('agent_phase_started', 'cto', phaseStarted('turn-1'), '2026-11-23T10:00:00Z'));
    let row = m.agent('cto')!;
    t.equal(row.activity, 'working');
    t.equal(row.live_call?.in_progress, true);
    t.equal(row.live_call?.round_num, -1, 'the opening round');
    m.applyEvent(
      event(
        'agent_turn_progress',
        'cto',
        {
          turn_id: 'turn-1',
          phase: 'plan',
          iteration: 0,
          round_num: 1,
          max_rounds: 8,
          response: 'thinking so far',
          tool_calls: [
            {
              name: 'grep',
              started_at: '2026-11-23T10:00:01Z',
              duration_ms: 0,
              origin: 'builtin',
              server: null,
            },
          ],
          running_call: { name: 'grep', started_at: '2026-11-23T10:00:01Z', origin: 'builtin', server: null },
          round_started_at: '2026-11-23T10:00:01Z',
        },
        '2026-11-23T10:00:01Z',
      ),
    );
    row = m.agent('cto')!;
    t.equal(row.live_call?.response, 'thinking so far');
    t.equal(row.live_call?.round_num, 1);
    t.equal(row.live_call?.running_call?.name, 'grep');
    for (const key of liveCallFields) t.ok(row.live_call && key in row.live_call, `live_call.${key}`);
    m.applyEvent(
      event(
        'agent_phase_completed',
        'cto',
        phaseCompleted('turn-1', 'plan', '2026-11-23T10:00:02Z'),
        '2026-11-23T10:00:02Z',
      ),
    );
    m.applyEvent(
      event(
        'agent_turn_completed',
        'cto',
        turnCompleted('turn-1', '2026-11-23T10:00:03Z'),
        '2026-11-23T10:00:03Z',
      ),
    );
    row = m.agent('cto')!;
    t.equal(row.activity, 'idle');
    t.equal(row.live_call, null, 'null between turns');
    t.equal(row.turn, null);
    t.equal(row.last_turn?.turn_id, 'turn-1');
    t.equal(row.llm_history.length, 1);
  },
);

t.test(
  'a failed phase keeps its call on screen stamped failed and records last_error; a failed turn is not a stop',
  async (t) => {
    const m = models();
    m.applyEvent(
      event('agent_phase_started', 'cto', phaseStarted('turn-2', 'execute'), '2026-11-23T10:00:00Z'),
    );
    m.applyEvent(
      event(
        'agent_turn_progress',
        'cto',
        {
          turn_id: 'turn-2',
          phase: 'execute',
          iteration: 0,
          round_num: 2,
          max_rounds: 8,
          response: 'half an answer',
          tool_calls: [],
        },
        '2026-11-23T10:00:01Z',
      ),
    );
    m.applyEvent(
      event(
        'agent_phase_completed',
        'cto',
        phaseCompleted('turn-2', 'execute', '2026-11-23T10:00:02Z', {
          failed: true,
          response: '',
          tool_executions: [],
          rounds: [],
          error: 'provider timed out',
        }),
        '2026-11-23T10:00:02Z',
      ),
    );
    m.applyEvent(
      event(
        'agent_turn_completed',
        'cto',
        turnCompleted('turn-2', '2026-11-23T10:00:03Z', { failed: true }),
        '2026-11-23T10:00:03Z',
      ),
    );
    let row = m.agent('cto')!;
    t.equal(row.live_call?.failed, true);
    t.equal(row.live_call?.response, 'half an answer', 'what was on screen stays');
    t.equal(row.last_error?.message, 'provider timed out');
    t.equal(row.last_error?.phase, 'execute');
    t.equal(row.activity, 'idle');
    t.equal(row.stopped_reason, null);
    t.equal(row.llm_history[0]?.failed, true);
    // A turn that fails with a cause of its own (a budget stop) still names the phase it failed in.
    m.applyEvent(
      event(
        'agent_turn_completed',
        'cto',
        turnCompleted('turn-2', '2026-11-23T10:00:04Z', {
          failed: true,
          error: 'seat token budget exhausted',
        }),
        '2026-11-23T10:00:04Z',
      ),
    );
    row = m.agent('cto')!;
    t.match(row.last_error, { message: 'seat token budget exhausted', phase: 'execute', turn_id: 'turn-2' });
  },
);

/** The plan phase of turn-1 on cto, a model call running since `at` with `response` on screen. */
const progress = (at: string, response: string) =>
  event(
    'agent_turn_progress',
    'cto',
    {
      turn_id: 'turn-1',
      phase: 'plan',
      iteration: 0,
      round_num: 0,
      max_rounds: 8,
      response,
      tool_calls: [],
      running_call: { name: 'slow-model', started_at: at, origin: 'model', server: null },
    },
    at,
  );

t.test(
  "a turn waiting for its provider's retry_at runs no call; it carries on when it resumes",
  async (t) => {
    const m = models();
    m.applyEvent(event('agent_phase_started', 'cto', phaseStarted('turn-1'), '2026-11-23T10:00:00Z'));
    m.applyEvent(progress('2026-11-23T10:00:01Z', 'half'));
    const unavailable = (turn: string, at: string) =>
    event('llm_unavailable', 'cto', { chain: ['oa'], attempts: [{ provider: 'oa', reason: 'keys_cooling', status: 429 }], turn_id: turn, phase: 'plan', retry_at: '2026-11-23T12:30:00Z' }, at); // prettier-ignore
    m.applyEvent(unavailable('turn-0', '2026-11-23T10:00:02Z'));
    t.equal(m.agent('cto')?.live_call?.in_progress, true, "another turn's wait cuts nothing");
    m.applyEvent(unavailable('turn-1', '2026-11-23T10:00:03Z'));
    let row = m.agent('cto')!;
    t.match(row.live_call, { in_progress: false, running_call: null, response: 'half' });
    t.not(row.activity, 'working', 'the row does not read as working either');
    m.applyEvent(progress('2026-11-23T10:00:31Z', 'half and more'));
    row = m.agent('cto')!;
    t.match(row.live_call, { in_progress: true, response: 'half and more' }, 'resumed at retry_at');
  },
);

t.test('a pause with stop_running cuts the live call at once; the resumed turn brings it back', async (t) => {
  const m = models();
  m.applyEvent(event('agent_phase_started', 'cto', phaseStarted('turn-1'), '2026-11-23T10:00:00Z'));
  m.applyEvent(progress('2026-11-23T10:00:01Z', 'half'));
  const pause = (stop: boolean, at: string) =>
    event('agent_paused', 'cto', { paused: { by: 'ops', at, reason: 'hold', stop_running: stop } }, at);
  m.applyEvent(pause(false, '2026-11-23T10:00:02Z'));
  t.equal(
    m.agent('cto')?.live_call?.in_progress,
    true,
    'a pause that lets the turn finish leaves it running',
  );
  m.applyEvent(pause(true, '2026-11-23T10:00:03Z'));
  let call = m.agent('cto')?.live_call;
  t.equal(call?.in_progress, false, 'cut: not running');
  t.equal(call?.running_call, null);
  t.equal(call?.response, 'half', 'what was on screen stays');
  m.applyEvent(event('agent_resumed', 'cto', { by: 'ops', at: 'x' }, '2026-11-23T10:00:10Z'));
  m.applyEvent(progress('2026-11-23T10:00:11Z', 'half and more'));
  call = m.agent('cto')?.live_call;
  t.equal(call?.in_progress, true, 'the resumed turn carries the call on');
  t.equal(call?.response, 'half and more');
});

t.test('an older event never overwrites newer state, across timestamp encodings', async (t) => {
  const m = models();
  // Paused at 10:00Z, then a resume stamped 10:30+01:00 (= 09:30Z) arrives late: it is older.
  m.applyEvent(
    event(
      'agent_paused',
      'cto',
      { paused: { by: 'ops', at: '2026-11-23T10:00:00Z', reason: 'maintenance', stop_running: true } },
      '2026-11-23T10:00:00Z',
    ),
  );
  m.applyEvent(
    event(
      'agent_resumed',
      'cto',
      { by: 'ops', at: '2026-11-23T10:30:00+01:00' },
      '2026-11-23T10:30:00+01:00',
    ),
  );
  let row = m.agent('cto')!;
  t.same(row.paused, { by: 'ops', at: '2026-11-23T10:00:00Z', reason: 'maintenance', stop_running: true });
  t.equal(row.activity, 'stopped');
  t.equal(row.stopped_reason, 'paused');
  // A resume at 11:00:00.5+01:00 (= 10:00:00.5Z) is newer by half a second: it applies.
  m.applyEvent(event('agent_resumed', 'cto', { by: 'ops', at: 'x' }, '2026-11-23T11:00:00.5+01:00'));
  row = m.agent('cto')!;
  t.equal(row.paused, null);
  // A progress event older than the phase start in epoch seconds does not replace the live call.
  m.applyEvent(event('agent_phase_started', 'cto', phaseStarted('turn-9'), '2026-11-23T10:05:00Z'));
  m.applyEvent(
    event(
      'agent_turn_progress',
      'cto',
      {
        turn_id: 'turn-8',
        phase: 'plan',
        iteration: 0,
        round_num: 3,
        max_rounds: 8,
        response: 'stale',
        tool_calls: [],
      },
      String(Date.parse('2026-11-23T10:04:00Z') / 1000),
    ),
  );
  t.equal(m.agent('cto')!.live_call?.turn_id, 'turn-9');
});

t.test('activity precedence: working, needs, paused, unplaced, budget, provider, idle', async (t) => {
  const rt = (over: Partial<SeatRuntime>): SeatRuntime =>
    ({
      turn: null,
      needs: null,
      paused: null,
      budget: null,
      provider: null,
      ...over,
    }) as SeatRuntime;
  const cause = { since: 'x', detail: 'y' };
  const paused = { by: 'a', at: 'b', reason: 'c', stop_running: false };
  const turn = { turn_id: 't', started_at: 's', phase: 'plan', iteration: 0, trigger: null, work_item: null };
  const all = rt({ turn, needs: cause, paused, budget: cause, provider: cause });
  t.same(activityOf(all, false, true), { activity: 'working', stopped_reason: null });
  t.same(
    activityOf({ ...all, needs: null, paused: { ...paused, stop_running: true } }, true, false),
    { activity: 'stopped', stopped_reason: 'paused' },
    'a stop_running pause cut the turn: it waits for the resume',
  );
  t.same(
    activityOf(rt({ turn, provider: { ...cause, turn_id: 't' } }), true, false),
    { activity: 'stopped', stopped_reason: 'provider' },
    'the turn waits for its provider retry_at',
  );
  t.same(
    activityOf(rt({ turn, provider: { ...cause, turn_id: 'another' } }), true, false),
    { activity: 'working', stopped_reason: null },
    'another turn waiting does not stop this one',
  );
  t.same(activityOf({ ...all, turn: null }, false, true), { activity: 'needs', stopped_reason: null });
  t.same(activityOf({ ...all, turn: null, needs: null }, false, true), {
    activity: 'stopped',
    stopped_reason: 'paused',
  });
  t.same(activityOf({ ...all, turn: null, needs: null, paused: null }, false, true), {
    activity: 'stopped',
    stopped_reason: 'unplaced',
  });
  t.same(activityOf({ ...all, turn: null, needs: null, paused: null }, true, false), {
    activity: 'stopped',
    stopped_reason: 'budget',
  });
  t.same(activityOf(rt({ provider: cause }), true, false), {
    activity: 'stopped',
    stopped_reason: 'provider',
  });
  t.same(
    activityOf(rt({}), true, true),
    { activity: 'stopped', stopped_reason: 'budget' },
    'a refused budget scope stops the seat',
  );
  t.same(activityOf(undefined, true, false), { activity: 'idle', stopped_reason: null });
});

t.test(
  'stop causes from events: provider clears on a completed phase, budget and needs on a phase start',
  async (t) => {
    const m = models({ placed: (h) => h !== 'dev-one' });
    t.equal(m.agent('dev-one')!.stopped_reason, 'unplaced');
    m.applyEvent(
      event(
        'llm_unavailable',
        'cto',
        {
          chain: ['main', 'backup'],
          attempts: [
            { provider: 'main', reason: 'keys_cooling', status: null },
            { provider: 'backup', reason: 'timeout', status: null },
          ],
        },
        '2026-11-23T10:00:00Z',
      ),
    );
    t.equal(m.agent('cto')!.stopped_reason, 'provider');
    t.match(m.agent('cto')!.last_error, { source: 'llm_unavailable', message: 'backup: timeout' });
    m.applyEvent(
      event(
        'agent_phase_completed',
        'cto',
        phaseCompleted('turn-3', 'plan', '2026-11-23T10:01:00Z'),
        '2026-11-23T10:01:00Z',
      ),
    );
    t.equal(m.agent('cto')!.stopped_reason, null);
    m.applyEvent(
      event(
        'budget_exhausted',
        'ceo',
        {
          // The org cap in force (companyDoc: 1000): a cap the document no longer has frees the seat.
          scope: 'org',
          cap: 1000,
          used: 1200,
          window_start: '2026-11-01T00:00:00Z',
          window_end: '2026-12-01T00:00:00Z',
        },
        '2026-11-23T10:02:00Z',
      ),
    );
    t.equal(m.agent('ceo')!.stopped_reason, 'budget');
    m.applyEvent(
      event(
        'agent_turn_completed',
        'ceo',
        turnCompleted('turn-4', '2026-11-23T10:03:00Z', { needs: { reason: 'asked Dana' } }),
        '2026-11-23T10:03:00Z',
      ),
    );
    t.equal(m.agent('ceo')!.activity, 'needs');
    m.applyEvent(event('agent_phase_started', 'ceo', phaseStarted('turn-5'), '2026-11-23T10:04:00Z'));
    t.equal(m.agent('ceo')!.activity, 'working');
    m.applyEvent(
      event(
        'agent_turn_completed',
        'ceo',
        turnCompleted('turn-5', '2026-11-23T10:05:00Z'),
        '2026-11-23T10:05:00Z',
      ),
    );
    t.equal(m.agent('ceo')!.activity, 'idle', 'the phase start cleared budget and needs');
    m.applyEvent(
      event(
        'turn.guard_breach',
        'ceo',
        { turn_id: 'turn-5', kind: 'repeated_call', detail: 'same call 5 times' },
        '2026-11-23T10:06:00Z',
      ),
    );
    t.match(m.agent('ceo')!.last_error, { kind: 'repeated_call', message: 'same call 5 times' });
    // The scheduler's breach: no turn id, no detail.
    m.applyEvent(
      event(
        'turn.guard_breach',
        'ceo',
        {
          kind: 'scheduled_timeout',
          turn_id: null,
          target_handle: 'ceo',
          scope_type: 'role',
          scope_id: 'CEO',
          schedule_name: 'daily',
          scheduled_at: '2026-11-23T09:00:00Z',
          fired_at: '2026-11-23T09:00:00Z',
          timeout_seconds: 600,
          deadline: '2026-11-23T09:10:00Z',
          at: '2026-11-23T10:07:00Z',
        },
        '2026-11-23T10:07:00Z',
      ),
    );
    t.match(m.agent('ceo')!.last_error, {
      kind: 'scheduled_timeout',
      turn_id: null,
      message: 'the scheduled turn outlived its 600 s timeout',
    });
  },
);

t.test('a seat over its own token cap reads stopped / budget from spend alone', async (t) => {
  const m = models();
  m.applySpend(spend({ handle: 'cto', total_tokens: 600, timestamp: '2026-11-23T09:00:00Z' }));
  const row = m.agent('cto')!;
  t.equal(row.stopped_reason, 'budget');
  t.equal(row.budget.refused, 'seat');
  t.equal(row.budget.seat.cap, 500);
  t.equal(row.budget.seat.used, 600);
  t.equal(row.tokens.total_tokens, 600);
});

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

t.test(
  'stop causes end with their cause: a cap raised or removed, the window over, the cooldown ended',
  async (t) => {
    const exhausted = (handle: string, scope: 'org' | 'seat', cap: number, used: number, windowEnd: string) =>
      event(
        'budget_exhausted',
        handle,
        { scope, cap, used, window_start: '2026-11-01T00:00:00Z', window_end: windowEnd },
        '2026-11-23T10:00:00Z',
      );
    const m = models();
    // cto's seat cap is 500: exhausted at 500 of 400 (a lower cap then), it is free now the cap is 500.
    m.applyEvent(exhausted('cto', 'seat', 400, 450, '2026-12-01T00:00:00Z'));
    t.equal(m.agent('cto')!.stopped_reason, null, 'the seat cap was raised past what was used');
    m.applyEvent({
      ...exhausted('cto', 'seat', 500, 520, '2026-12-01T00:00:00Z'),
      timestamp: '2026-11-23T10:01:00Z',
    });
    t.equal(m.agent('cto')!.stopped_reason, 'budget', 'the cap in force refuses');
    // The org cap (1000): in force while its window lasts.
    m.applyEvent(exhausted('ceo', 'org', 1000, 1000, '2026-12-01T00:00:00Z'));
    t.equal(m.agent('ceo')!.stopped_reason, 'budget');
    m.applyEvent({
      ...exhausted('ceo', 'org', 1000, 1000, '2026-11-01T00:00:00Z'),
      timestamp: '2026-11-23T10:01:00Z',
    });
    t.equal(m.agent('ceo')!.stopped_reason, null, 'a window already over stops nobody');
    // A seat with no cap of its own: a seat-scope stop from a cap since removed is over.
    m.applyEvent(exhausted('dev-one', 'seat', 10, 12, '2026-12-01T00:00:00Z'));
    t.equal(m.agent('dev-one')!.stopped_reason, null);

    const unavailable = (retryAt: string | null, at: string) =>
      event(
        'llm_unavailable',
        'cto',
        { chain: ['main'], attempts: [{ provider: 'main', reason: 'keys_cooling' }], retry_at: retryAt },
        at,
      );
    const p = models();
    p.applyEvent(unavailable('2026-11-23T12:30:00Z', '2026-11-23T11:00:00Z'));
    t.equal(p.agent('cto')!.stopped_reason, 'provider', 'cooling until 12:30 (the read is at 12:00)');
    p.applyEvent(unavailable('2026-11-23T11:30:00Z', '2026-11-23T11:01:00Z'));
    t.equal(p.agent('cto')!.stopped_reason, null, 'the cooldown ended at 11:30');
    p.applyEvent(unavailable(null, '2026-11-23T11:02:00Z'));
    t.equal(p.agent('cto')!.stopped_reason, 'provider', 'no retry instant: until a phase completes');
  },
);

t.test('a stop cause that ends by itself is pushed on the tick that passes it', async (t) => {
  let clock = Date.parse('2026-11-23T11:00:00Z');
  const m = new ReadModels({ now: () => clock });
  m.setCompany(companyDoc, 'rev-1');
  const frames: unknown[] = [];
  m.sections()
    .find((s) => s.name === 'agents')!
    .subscribe((data) => frames.push(data));
  m.applyEvent(
    event(
      'llm_unavailable',
      'cto',
      {
        chain: ['main'],
        attempts: [{ provider: 'main', reason: 'keys_cooling' }],
        retry_at: '2026-11-23T11:00:30Z',
      },
      '2026-11-23T11:00:00Z',
    ),
  );
  t.equal(m.agent('cto')!.stopped_reason, 'provider');
  frames.length = 0;
  m.tick();
  t.same(frames, [], 'nothing moved yet');
  clock += 31_000;
  m.tick();
  t.match(frames, [{ cto: { activity: 'idle', stopped_reason: null } }], 'the row is pushed idle');
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
