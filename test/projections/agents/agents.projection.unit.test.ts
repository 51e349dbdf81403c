import t from 'tap';
import { activityOf } from '../../../projections/agents/agents.rows.js';
import type { SeatRuntime } from '../../../projections/agents/agents.state.js';
import {
  agentRowFields,
  event,
  liveCallFields,
  phaseCompleted,
  phaseStarted,
  turnCompleted,
  agentModels,
} from '../fixtures/readmodels.js';

const models = agentModels;

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

t.test('activity precedence: working, unplaced, needs, paused, budget, provider, idle', async (t) => {
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
  t.same(activityOf(all, true, true), { activity: 'working', stopped_reason: null });
  t.same(
    activityOf({ ...all, needs: null, paused: null }, false, false),
    { activity: 'stopped', stopped_reason: 'unplaced' },
    'a turn left open by a holder that died is worked by nobody',
  );
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
  t.same(
    activityOf({ ...all, turn: null }, false, true),
    { activity: 'stopped', stopped_reason: 'unplaced' },
    'a seat no node holds reads stopped / unplaced, even waiting on a question or paused',
  );
  t.same(activityOf({ ...all, turn: null }, true, true), { activity: 'needs', stopped_reason: null });
  t.same(activityOf({ ...all, turn: null, needs: null }, true, true), {
    activity: 'stopped',
    stopped_reason: 'paused',
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
  "a node's own frame folded typed shows what its copy from the bus shows, and is gated alike",
  async (t) => {
    const frame = {
      turn_id: 'turn-1',
      phase: 'plan',
      iteration: 0,
      round_num: 0,
      max_rounds: 8,
      response: 'so far',
      tool_calls: [],
      rounds: [],
    };
    const started = event('agent_phase_started', 'cto', phaseStarted('turn-1'), '2026-11-23T10:00:00Z');
    const progress = event('agent_turn_progress', 'cto', frame, '2026-11-23T10:00:01Z');
    const viaBus = models();
    const local = models();
    for (const m of [viaBus, local]) m.applyEvent(started);
    viaBus.applyEvent(progress);
    local.foldProgress(progress, frame);
    t.same(local.agent('cto')?.live_call, viaBus.agent('cto')?.live_call);
    t.equal(local.agent('cto')?.live_call?.response, 'so far');
    // Older news than the completion that ended the call: not shown, either way.
    const done = event(
      'agent_phase_completed',
      'cto',
      phaseCompleted('turn-1', 'plan', '2026-11-23T10:00:02Z'),
      '2026-11-23T10:00:02Z',
    );
    const late = event(
      'agent_turn_progress',
      'cto',
      { ...frame, response: 'late' },
      '2026-11-23T10:00:01.500Z',
    );
    for (const m of [viaBus, local]) m.applyEvent(done);
    viaBus.applyEvent(late);
    local.foldProgress(late, { ...frame, response: 'late' });
    t.equal(local.agent('cto')?.live_call?.in_progress, false);
    t.same(local.agent('cto')?.live_call, viaBus.agent('cto')?.live_call);
  },
);

t.test(
  "the running turn's started_at is when the turn began, the same instant its last_turn reads once it ends",
  async (t) => {
    const m = models();
    const began = '2026-11-23T10:00:00.000Z';
    const planAt = '2026-11-23T10:00:00.040Z';
    m.applyEvent(
      event(
        'agent_phase_started',
        'cto',
        { ...phaseStarted('turn-1', 'plan', 0, planAt), turn_started_at: began },
        planAt,
      ),
    );
    t.equal(m.agent('cto')!.turn?.started_at, began, 'not the first phase start');
    const endAt = '2026-11-23T10:00:02.000Z';
    m.applyEvent(event('agent_phase_completed', 'cto', phaseCompleted('turn-1', 'plan', endAt), endAt));
    m.applyEvent(
      event('agent_turn_completed', 'cto', { ...turnCompleted('turn-1', endAt), started_at: began }, endAt),
    );
    t.equal(m.agent('cto')!.last_turn?.started_at, began);
  },
);

t.test('a phase start recorded without turn_started_at dates the turn by the phase, as before', async (t) => {
  const m = models();
  const planAt = '2026-11-23T10:00:00.040Z';
  m.applyEvent(event('agent_phase_started', 'cto', phaseStarted('turn-1', 'plan', 0, planAt), planAt));
  t.equal(m.agent('cto')!.turn?.started_at, planAt);
});
