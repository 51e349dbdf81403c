/**
 * A deploy or a crash of the node running a turn, with a peer: two `svc serve` children on one JetStream
 * server, the local fake model and a stdio MCP server that appends each call to a ledger
 * (fixtures/resume-fleet.ts). While the seat's MCP tool call runs the holder is stopped — SIGTERM with a
 * 1 s turn grace (it cuts the turn for shutdown and releases the seat), or kill -9 (nothing is released:
 * the peer takes the seat once its lease lapsed and the wake once its delivery timed out). Either way the
 * peer resumes the turn from its journal: the call in flight is not repeated (the model reads "outcome
 * unknown"), the side effect happened once, the turn completes once with one set of figures.
 */
import t, { type Test } from 'tap';
import { Payloads } from '../../schema/index.js';
import type { Step } from '../fixtures/llm/script.js';
import { startResumeFleet, type ResumeFleet } from './fixtures/resume-fleet.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const script: Step[] = [
  {
    kind: 'text',
    text: '{"decision":"plan","steps":["file it"],"success_criteria":["filed"],"tools":["tickets_create_ticket"]}',
    usage,
  },
  {
    kind: 'tool_calls',
    calls: [{ id: 'c1', name: 'tickets_create_ticket', arguments: { title: 'T-9', hold: true } }],
    usage,
  },
  { kind: 'text', text: 'The ticket may exist; I will check before filing again.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"reported"}', usage },
];

/** Waits until ada's ticket call is in flight on node-a. */
const holding = (f: ResumeFleet) =>
  f.a.run.waitForLog(
    (l) => l.msg === 'tool server stderr' && /^holding create_ticket/m.test(String(l['stderr'])),
  );

/** The peer resumed and completed the turn: each side effect once, one completion, one set of figures. */
async function resumedOnce(t: Test, f: ResumeFleet): Promise<void> {
  await f.b.run.waitForLog((l) => l.msg === 'turn resumed', 120_000);
  await f.b.run.waitForLog((l) => l.msg === 'turn completed', 60_000);
  t.equal(f.tickets().length, 1, 'the ticket was created once');
  t.equal(f.llm.requests.length, 4, 'plan and the tool-calling answer were not asked again');
  t.match(JSON.stringify(f.llm.requests[2]!.body), /outcome unknown — check before retrying/);

  const events = await f.events();
  const completed = events.filter((e) => e.type === 'agent_turn_completed');
  t.equal(completed.length, 1, 'one completion');
  const turn = Payloads.AgentTurnCompleted.parse(completed[0]!.payload);
  t.equal(turn.failed, false);
  t.same(
    events.filter((e) => e.type === 'agent_phase_started').map((e) => e.payload['phase']),
    ['plan', 'execute', 'review'],
    'each phase started once across the two nodes',
  );
  const phases = events
    .filter((e) => e.type === 'agent_phase_completed')
    .map((e) => Payloads.AgentPhaseCompleted.parse(e.payload));
  t.same(
    phases.map((p) => p.phase),
    ['plan', 'execute', 'review'],
    'each phase recorded once',
  );
  t.equal(turn.total_tokens, 4 * 15, 'every answered model call counted once');
  t.equal(
    phases.reduce((sum, p) => sum + (p.input_tokens ?? 0) + (p.output_tokens ?? 0), 0),
    turn.total_tokens,
    'the phase records sum to the completion',
  );
  t.notMatch(JSON.stringify(events), /the turn was stopped/, 'nothing reads as an operator stop');
}

t.test(
  'SIGTERM mid tool call with a peer: the peer resumes the turn, the side effect once, one completion',
  async (t) => {
    const f = await startResumeFleet(t, script);
    await f.wake('File a ticket');
    await holding(f);
    f.a.run.kill('SIGTERM');
    await f.a.run.waitForLog((l) => l.msg === 'turn cut for shutdown; handed over');
    t.equal(await f.a.run.exited, 0, 'the holder drains and exits 0');
    await resumedOnce(t, f);
  },
);

t.test(
  'kill -9 mid tool call with a peer: the peer resumes the turn once the lease lapsed, the side effect once',
  async (t) => {
    const f = await startResumeFleet(t, script);
    await f.wake('File a ticket');
    await holding(f);
    f.a.run.kill('SIGKILL');
    t.equal(await f.a.run.exited, null, 'the holder died without a drain');
    await resumedOnce(t, f);
  },
);
