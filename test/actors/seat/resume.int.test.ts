/**
 * Turns that survive a stop without doing things twice: a turn cut mid tool call (the seats stopped as a
 * node's drain stops them once its grace ran out) resumes on the next start over the same store from its
 * journal — completed model rounds and tool results are replayed, not asked again; a call in flight at the
 * cut is retried only when the tool is declared idempotent, else the model reads "outcome unknown". A
 * stdio MCP server appends every call to a ledger file, so side effects are counted outside the node.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { Streams } from '../../../bus/index.js';
import { Payloads, type EventRecord } from '../../../schema/index.js';
import { startLlmServer } from '../../fixtures/llm/llm-server.js';
import type { Step } from '../../fixtures/llm/script.js';
import { ledgerLines, ticketsServer } from '../../scripts/fixtures/tickets.js';
import { captureLogs, type Captured } from '../toolservers/harness.js';
import { startCompany, type Harness } from './harness.js';

function store(t: Test): { dir: string; ledger: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-resume-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return { dir: join(dir, 'data'), ledger: join(dir, 'ledger.jsonl') };
}

const tickets = (ledger: string) => ({ mcp_servers: [ticketsServer(ledger)] });

const plan = (tool: string): Step => ({
  kind: 'text',
  text: `{"decision":"plan","steps":["file the ticket"],"success_criteria":["filed"],"tools":["${tool}"]}`,
  usage: { prompt_tokens: 100, completion_tokens: 20 },
});
const call = (tool: string, args: Record<string, unknown> = { title: 'T-1', hold: true }): Step => ({
  kind: 'tool_calls',
  calls: [{ id: 'c1', name: tool, arguments: args }],
  usage: { prompt_tokens: 120, completion_tokens: 10 },
});
const account: Step = {
  kind: 'text',
  text: 'Filed T-1.',
  usage: { prompt_tokens: 150, completion_tokens: 5 },
};
const review: Step = {
  kind: 'text',
  text: '{"verdict":"done","notes":"filed"}',
  usage: { prompt_tokens: 90, completion_tokens: 8 },
};

/** The first run: plan, then the execute call that holds; the seats are stopped while it is in flight. */
async function cutMidCall(t: Test, dir: string, ledger: string, tool: string): Promise<string> {
  const logs: Captured = captureLogs();
  const first = await startCompany(t, {
    script: [plan(tool), call(tool)],
    storeDir: dir,
    extra: tickets(ledger),
    logs,
  });
  const wakeId = await first.wake('ada');
  await logs.waitFor((l) => l.msg === 'tool server stderr' && /^holding /m.test(String(l['stderr'])));
  await first.stopSeats();
  await first.bus.close();
  return wakeId;
}

async function events(h: Harness, type: string): Promise<EventRecord[]> {
  return h.events(type);
}

/** One set of figures: the completion, the phase records and the spend records agree. */
async function oneSetOfFigures(t: Test, h: Harness, expected: number): Promise<void> {
  const completed = await events(h, 'agent_turn_completed');
  t.equal(completed.length, 1, 'one completion');
  const turn = Payloads.AgentTurnCompleted.parse(completed[0]!.payload);
  t.equal(turn.failed, false, 'the turn did not fail');
  t.same(turn.phases, ['plan', 'execute', 'review']);
  t.equal(turn.total_tokens, expected, 'the completion counts every model call once');
  const started = await events(h, 'agent_phase_started');
  t.same(
    started.map((e) => e.payload['phase']),
    ['plan', 'execute', 'review'],
    'each phase started once: a resumed phase is not started again',
  );
  const phases = (await events(h, 'agent_phase_completed')).map((e) =>
    Payloads.AgentPhaseCompleted.parse(e.payload),
  );
  t.same(
    phases.map((p) => p.phase),
    ['plan', 'execute', 'review'],
    'each phase recorded once',
  );
  t.notOk(
    phases.some((p) => p.failed),
    'no phase recorded as failed',
  );
  for (const p of phases)
    t.equal(p.total_tokens, p.input_tokens + p.output_tokens, `${p.phase}: total = in + out`);
  t.equal(
    phases.reduce((sum, p) => sum + p.total_tokens, 0),
    expected,
    'the phase records add up to the completion',
  );
  const spend = (await h.spend()).filter((s) => s.turn_id === turn.turn_id);
  t.equal(
    spend.reduce((sum, s) => sum + s.total_tokens, 0),
    expected,
    'spend adds up to the completion',
  );
  t.equal(spend.length, 4, 'one spend record per model call');
  t.equal(
    (await h.runtime.budget.check('ada', { org: 1, seat: 0 }))?.used,
    expected,
    'the budget counted once',
  );
  const all = await h.events();
  t.notMatch(JSON.stringify(all), /the turn was stopped/, 'nothing reads as an operator stop');
}

t.test(
  'a turn cut while a non-idempotent MCP tool ran resumes from its journal: the call is not repeated, the model reads outcome unknown',
  async (t) => {
    const { dir, ledger } = store(t);
    await cutMidCall(t, dir, ledger, 'tickets_create_ticket');
    t.equal(ledgerLines(ledger).length, 1, 'the ticket was created before the cut');

    const llm = await startLlmServer({ wire: 'openai', script: [account, review] });
    t.teardown(() => llm.close());
    const second = await startCompany(t, { script: [], storeDir: dir, llm, extra: tickets(ledger) });
    await second.waitFor((e) => e.type === 'agent_turn_completed');

    t.equal(ledgerLines(ledger).length, 1, 'the ticket was created once');
    t.equal(llm.requests.length, 2, 'plan and the tool-calling answer were replayed, not asked again');
    const resumedCall = JSON.stringify(llm.requests[0]!.body);
    t.match(resumedCall, /outcome unknown — check before retrying/, 'the model is told to check');
    t.match(resumedCall, /Phase: EXECUTE/);
    const execute = Payloads.AgentPhaseCompleted.parse(
      (await events(second, 'agent_phase_completed')).find((e) => e.payload['phase'] === 'execute')!.payload,
    );
    t.match(execute.tool_executions, [
      { name: 'tickets_create_ticket', call_id: 'c1', origin: 'mcp:tickets', error: /^outcome unknown/ },
    ]);
    t.same(
      execute.rounds.map((r) => r.round),
      [-1, 0],
      'the replayed round and the new one, each once',
    );
    t.ok(
      execute.timeline.some((e) => e.kind === 'resumed'),
      'the timeline says where the phase resumed',
    );
    await oneSetOfFigures(t, second, 100 + 20 + 120 + 10 + 150 + 5 + 90 + 8);

    // The journal says why the turn paused: a cut for shutdown.
    let cut = 0;
    for await (const msg of second.bus.replay(Streams.Turns)) {
      const record = JSON.parse(new TextDecoder().decode(msg.data)) as { kind: string; reason?: string };
      if (record.kind === 'cut') {
        cut += 1;
        t.equal(record.reason, 'shutdown');
      }
    }
    t.equal(cut, 1, 'one cut recorded');
  },
);

t.test('a call in flight to a tool declared idempotent is retried when the turn resumes', async (t) => {
  const { dir, ledger } = store(t);
  await cutMidCall(t, dir, ledger, 'tickets_put_ticket');
  const llm = await startLlmServer({ wire: 'openai', script: [account, review] });
  t.teardown(() => llm.close());
  const second = await startCompany(t, { script: [], storeDir: dir, llm, extra: tickets(ledger) });
  await second.waitFor((e) => e.type === 'agent_turn_completed');
  t.equal(ledgerLines(ledger).length, 2, 'the idempotent call ran again');
  t.match(JSON.stringify(llm.requests[0]!.body), /put_ticket: T-1 done/, 'the model reads its real answer');
  t.equal(llm.requests.length, 2, 'no model round was asked twice');
  await oneSetOfFigures(t, second, 100 + 20 + 120 + 10 + 150 + 5 + 90 + 8);
});

t.test('a drain lets a running turn finish within its grace and takes no new wake meanwhile', async (t) => {
  const { dir, ledger } = store(t);
  const h = await startCompany(t, {
    script: [
      { ...plan('tickets_create_ticket'), hold: 'plan' },
      call('tickets_create_ticket', { title: 'T-2' }),
      account,
      review,
    ],
    storeDir: dir,
    extra: tickets(ledger),
  });
  await h.wake('ada');
  await h.llm.waitForRequests(1);
  let drained = false;
  const drain = h.runtime.drain(60_000).then(() => (drained = true));
  await h.wake('ada', 'after-the-drain-began');
  h.llm.release('plan');
  const completed = await h.waitFor((e) => e.type === 'agent_turn_completed');
  await drain;
  t.ok(drained);
  t.equal(Payloads.AgentTurnCompleted.parse(completed.payload).failed, false, 'the turn finished');
  t.equal(h.llm.requests.length, 4, 'the wake sent during the drain was not taken');
  t.equal(ledgerLines(ledger).length, 1);
  await oneSetOfFigures(t, h, 100 + 20 + 120 + 10 + 150 + 5 + 90 + 8);
});

t.test(
  'a drain whose grace runs out cuts the turn for shutdown: nothing fails, and the next start finishes it',
  async (t) => {
    const { dir, ledger } = store(t);
    const first = await startCompany(t, {
      script: [{ ...plan('tickets_create_ticket'), hold: 'never' }],
      storeDir: dir,
      extra: tickets(ledger),
    });
    await first.wake('ada');
    await first.llm.waitForRequests(1);
    await first.runtime.drain(50);
    t.same(
      (await first.events()).map((e) => e.type),
      ['agent_phase_started'],
      'the cut phase recorded no failure and the turn no completion',
    );
    await first.stopSeats();
    await first.bus.close();

    const llm = await startLlmServer({
      wire: 'openai',
      script: [
        plan('tickets_create_ticket'),
        call('tickets_create_ticket', { title: 'T-3' }),
        account,
        review,
      ],
    });
    t.teardown(() => llm.close());
    const second = await startCompany(t, { script: [], storeDir: dir, llm, extra: tickets(ledger) });
    await second.waitFor((e) => e.type === 'agent_turn_completed');
    t.equal(llm.requests.length, 4, 'the unanswered plan call is the only one asked again');
    t.equal(ledgerLines(ledger).length, 1);
    await oneSetOfFigures(t, second, 100 + 20 + 120 + 10 + 150 + 5 + 90 + 8);
  },
);
