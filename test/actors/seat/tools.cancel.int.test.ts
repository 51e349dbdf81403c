import t, { type Test } from 'tap';
import { sendCommand } from '../../../bus/index.js';
import { Commands, Payloads, ScheduledTimeoutBreach } from '../../../schema/index.js';
import { echoServerPath } from '../../fixtures/mcp/servers.js';
import { captureLogs, type Captured, type LogLine } from '../toolservers/harness.js';
import { cleanTurn, startCompany, type Harness } from './harness.js';
import { recordedDone, scheduledWake } from './wakes.js';

/** The company's `files` server, also serving `files_stall`: a tool that answers only by being cancelled. */
const files = {
  mcp_servers: [
    {
      name: 'files',
      command: process.execPath,
      args: [echoServerPath],
      env: { ECHO_NAME: 'files', ECHO_HANG_TOOLS: 'stall' },
      tool_prefix: 'files_',
    },
  ],
};
/** Plan picks the stalling tool, execute calls it; then one clean turn for the next wake. */
const script = [
  {
    kind: 'text' as const,
    text: '{"decision":"plan","steps":["stall"],"success_criteria":["done"],"tools":["files_stall"]}',
  },
  { kind: 'tool_calls' as const, calls: [{ id: 'c1', name: 'files_stall', arguments: {} }] },
  ...cleanTurn,
];

const stderr =
  (pattern: RegExp) =>
  (l: LogLine): boolean =>
    l.msg === 'tool server stderr' &&
    String(l['stderr'])
      .split('\n')
      .some((line) => pattern.test(line));

/** Waits until the server has the stalling call; its JSON-RPC request id. */
async function stalled(logs: Captured): Promise<string> {
  const waits = /^call \d+ waits$/;
  const burst = await logs.waitFor(stderr(waits));
  return String(burst['stderr'])
    .split('\n')
    .find((line) => waits.test(line))!
    .split(' ')[1]!;
}

/** The execute phase's record of the cut turn: failed, the call marked cancelled, no result. */
async function cutExecute(t: Test, h: Harness, turnId: string, error: RegExp) {
  const record = await h.waitFor(
    (e) =>
      e.type === 'agent_phase_completed' &&
      e.payload['turn_id'] === turnId &&
      e.payload['phase'] === 'execute',
  );
  const phase = Payloads.AgentPhaseCompleted.parse(record.payload);
  t.equal(phase.failed, true);
  t.match(phase.error, error);
  t.match(phase.tool_executions, [
    {
      name: 'files_stall',
      call_id: 'c1',
      result: '',
      error: /^cancelled: /,
      origin: 'mcp:files',
      server: 'files',
    },
  ]);
  t.equal(phase.tool_executions.length, 1);
  return phase;
}

/** Nothing of the turn after its cut: no model call after the tool, no late answer anywhere. */
async function nothingAfterCut(t: Test, h: Harness, turnId: string, modelCalls: number) {
  const events = (await h.events()).filter((e) => e.payload['turn_id'] === turnId);
  t.notMatch(JSON.stringify(events), /late answer/, 'the late result is recorded nowhere');
  t.equal(
    events.filter((e) => e.type === 'agent_phase_completed').length,
    2,
    'plan, and the cut execute; no review',
  );
  t.equal(h.llm.requests.length, modelCalls, 'no model call carried a tool result after the cut');
  t.notMatch(JSON.stringify(h.llm.requests), /late answer/);
}

t.test(
  'a scheduled turn cut at its deadline cancels the tool call in flight: the MCP server is told, the call is recorded cancelled',
  async (t) => {
    const logs = captureLogs();
    const h = await startCompany(t, { script, logs, extra: files });
    // Three seconds: plan, the execute call and the tool call start well within it; only the deadline ends it.
    const firedAt = new Date();
    await scheduledWake(h, 'ada', { firedAt, timeoutSeconds: 3 });
    const id = await stalled(logs);

    const breach = ScheduledTimeoutBreach.parse(
      (await h.waitFor((e) => e.type === 'turn.guard_breach')).payload,
    );
    const turn = Payloads.AgentTurnCompleted.parse(
      (await h.waitFor((e) => e.type === 'agent_turn_completed')).payload,
    );
    t.match(turn, { turn_id: breach.turn_id, failed: true, error: /^scheduled_timeout: / });

    // The server is sent notifications/cancelled for that request, with the deadline as its reason.
    const cancelled = await logs.waitFor(stderr(new RegExp(`^call ${id} cancelled: `)));
    t.match(String(cancelled['stderr']), /cancelled: scheduled_timeout: schedule nightly allows 3 s/);
    const phase = await cutExecute(t, h, turn.turn_id, /^scheduled_timeout: /);
    t.ok(
      Date.parse(phase.timestamp) - Date.parse(breach.deadline) < 5_000,
      'the phase ended with the deadline, not when the tool call would have timed out',
    );
    await recordedDone(h, 'ada', turn.turn_id);
    await nothingAfterCut(t, h, turn.turn_id, 2);

    // The server was not restarted for it and serves the next turn.
    await h.wake('ada', 'next');
    const next = await h.waitFor(
      (e) => e.type === 'agent_turn_completed' && e.payload['turn_id'] !== turn.turn_id,
    );
    t.equal(next.payload['failed'], false);
    t.match(h.tools.manager.status(), [{ server: 'files', restarts: 0, started: true }]);
    await nothingAfterCut(t, h, turn.turn_id, 6);
  },
);

t.test(
  'pause with stop_running cancels the tool call in flight and keeps the turn; resume resumes it once',
  async (t) => {
    const logs = captureLogs();
    const h = await startCompany(t, {
      script: [
        script[0]!,
        script[1]!,
        { kind: 'text' as const, text: 'The stall call may not have run.' },
        { kind: 'text' as const, text: '{"verdict":"done","notes":"reported"}' },
      ],
      logs,
      extra: files,
    });
    await h.wake('ada', 'first');
    const id = await stalled(logs);
    const pause = await sendCommand(
      h.bus,
      Commands.seats.pause,
      { seat: 'ada', by: 'ops', reason: 'stop', stop_running: true },
      { timeoutMs: 5000 },
    );
    t.match(pause, { ok: true, paused: { stop_running: true } });
    // The server is told, with the pause as the reason; the seat is paused with the turn cut, not ended.
    await logs.waitFor(stderr(new RegExp(`^call ${id} cancelled: the turn was stopped by a pause`)));
    await logs.waitFor((l) => l.msg === 'turn cut by a pause; resumes with the seat');
    t.equal(h.runtime.host('ada')?.state(), 'stopped.paused');
    t.equal((await h.events('agent_turn_completed')).length, 0, 'the cut turn is not completed');
    t.notOk(
      (await h.events('agent_phase_completed')).some((e) => e.payload['phase'] === 'execute'),
      'the cut execute records nothing',
    );
    t.equal(h.llm.requests.length, 2);

    t.match(
      await sendCommand(h.bus, Commands.seats.resume, { seat: 'ada', by: 'ops' }, { timeoutMs: 5000 }),
      { ok: true, paused: null },
    );
    const turn = Payloads.AgentTurnCompleted.parse(
      (await h.waitFor((e) => e.type === 'agent_turn_completed')).payload,
    );
    t.match(turn, { failed: false, phases: ['plan', 'execute', 'review'] });
    t.equal(h.llm.requests.length, 4, 'plan and the first execute answer were not asked again');
    const executes = (await h.events('agent_phase_completed'))
      .map((e) => Payloads.AgentPhaseCompleted.parse(e.payload))
      .filter((p) => p.phase === 'execute');
    t.equal(executes.length, 1, 'the resumed execute is recorded once');
    t.match(executes[0]!.tool_executions, [
      { name: 'files_stall', call_id: 'c1', result: '', error: /^outcome unknown — check before retrying/ },
    ]);
    t.equal(
      logs.lines
        .filter((l) => l.msg === 'tool server stderr')
        .flatMap((l) => String(l['stderr']).split('\n'))
        .filter((line) => /^call \d+ waits$/.test(line)).length,
      1,
      'the call in flight at the pause was not repeated',
    );
    t.equal((await h.events('agent_phase_started')).length, 3, 'no phase started twice');
  },
);
