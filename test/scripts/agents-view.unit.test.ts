/**
 * `svc agents show` of a seat in the middle of a turn, which the CLI's e2e test cannot reach without a model:
 * the turn, the live call, the last failed turn, the budget refusal, the latest LLM calls (ten of them) and
 * a note when a node of the fleet did not answer. Agent-written text reaches the terminal as one line.
 */
import t from 'tap';
import { agentDetail, duration } from '../../scripts/agents-view.js';

const meter = (cap: number, used: number, refused: boolean) => ({
  cap,
  used,
  remaining: cap === 0 ? null : cap - used,
  ratio: cap === 0 ? null : used / cap,
  refused,
});

const call = (i: number) => ({
  turn_id: 'turn-2',
  phase: 'execute',
  iteration: i,
  model: 'gpt-x',
  response: 'ok',
  tool_executions: i % 2 === 0 ? [{ name: 'read_file' }] : [],
  total_tokens: 100 + i,
  timestamp: `2026-03-01T10:${String(59 - i).padStart(2, '0')}:00.000Z`,
  failed: i === 0,
  duration_ms: i === 1 ? 0 : 1500,
  started_at: '2026-03-01T10:00:00.000Z',
  rounds: [],
});

const ada = {
  id: 'ada',
  role: 'Ada',
  activity: 'working',
  stopped_reason: null,
  live_call: {
    turn_id: 'turn-2',
    phase: 'execute',
    iteration: 2,
    model: 'gpt-x',
    response: 'thinking',
    tool_executions: [{ name: 'read_file' }],
    rounds: [{ round: 0 }, { round: 1 }],
    in_progress: true,
    round_narration: null,
    partial_round: null,
    round_started_at: null,
    running_call: { name: 'grep', started_at: '2026-03-01T11:00:01.000Z', origin: 'builtin', server: null },
    max_rounds: 8,
    failed: false,
  },
  last_error: { at: '2026-03-01T09:00:00.000Z', message: 'provider\u001b[31m down\nagain', source: 'agent_phase_completed', kind: null, turn_id: 'turn-1', phase: 'plan' }, // prettier-ignore
  turn: { turn_id: 'turn-2', started_at: '2026-03-01T11:00:00.000Z', phase: 'execute', iteration: 2, trigger: 'wake', work_item: 'ENG-7' }, // prettier-ignore
  last_turn: { turn_id: 'turn-1', started_at: '2026-03-01T08:59:00.000Z', ended_at: '2026-03-01T09:00:00.000Z', duration_ms: 61_000, phases: ['plan'], total_tokens: 900, failed: true, error: 'provider down', review: null }, // prettier-ignore
  paused: null,
  needs: null,
  tokens: { window_hours: 24, input_tokens: 1000, output_tokens: 234, total_tokens: 1234, calls: 5, cache_read_tokens: 0, cache_write_tokens: 0 }, // prettier-ignore
  budget: {
    window_start: '2026-03-01T00:00:00.000Z',
    window_end: '2026-04-01T00:00:00.000Z',
    seat: meter(1000, 1234, true),
    org: meter(0, 5000, false),
    refused: 'seat',
  },
  agent_id: 'a-1',
  unit: 'eng',
  llm_history: Array.from({ length: 12 }, (_, i) => call(i)),
  coverage: { nodes: [{ id: 'node-a', answered: true }, { id: 'node-b', answered: false, error: 'timeout' }], complete: false }, // prettier-ignore
};

t.test('show: a working seat with its live call, last turn, budget and latest calls', async (t) => {
  const lines = agentDetail(JSON.stringify(ada)).split('\n');
  t.same(lines.slice(0, 10), [
    'seat        ada (role Ada, unit eng)',
    'activity    working: execute',
    'turn        turn-2: execute #2 since 2026-03-01T11:00:00.000Z on ENG-7',
    'paused      no',
    'live call   execute #2 on gpt-x, round 2 of 8, 1 tool call, in progress; running grep since 2026-03-01T11:00:01.000Z',
    'last turn   turn-1 ended 2026-03-01T09:00:00.000Z after 1m01s, 900 tokens, failed: provider down',
    'last error  2026-03-01T09:00:00.000Z provider [31m down again (agent_phase_completed)',
    'tokens 24h  1234 (1000 in, 234 out) over 5 calls',
    'budget      seat 1234/1000, org 5000 (no cap); turns refused by the seat cap',
    '',
  ]);
  t.equal(lines[10], 'LLM calls, newest first (10 of 12):');
  const cells = (line: string | undefined) => (line ?? '').split(/\s{2,}/);
  t.same(cells(lines[11]), ['AT', 'TURN', 'PHASE', 'MODEL', 'TOKENS', 'TOOK', 'TOOLS', 'RESULT']);
  t.same(cells(lines[12]), ['2026-03-01T10:59:00.000Z', 'turn-2', 'execute #0', 'gpt-x', '100', '1.5 s', '1', 'failed']); // prettier-ignore
  t.same(cells(lines[13]).slice(4), ['101', '-', '0', 'ok'], 'an unmeasured call took -');
  t.same(cells(lines[21]).slice(2, 3), ['execute #9'], 'the tenth call is the last listed');
  t.equal(lines[22], "note: not every node answered (node-b: timeout); the seat's live state may be missing");
  t.equal(lines.length, 24, 'ten calls, then the note');
});

t.test('durations read as a person says them', async (t) => {
  t.same([850, 1500, 61_000, 3_600_000].map(duration), ['850 ms', '1.5 s', '1m01s', '60m00s']);
});
