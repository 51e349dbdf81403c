/**
 * Deploys in the middle of a turn, on real `svc serve` children over one memory-engine store: the local
 * fake model and a stdio MCP server that appends every call to a ledger file. kill -9 while a tool call
 * runs, then a restart: the turn resumes from its journal, the tool's side effect happens once. SIGTERM
 * while the model answers: the turn finishes within the drain's grace, or — the grace run out — is cut
 * for shutdown and finished by the next start. kill -9 while the model answers: only that call is asked
 * again. kill -9 between an answer that failed mid-stream and the store of its spend: the next start stores
 * the journaled spend once. Either way one completion, one set of figures, and
 * nothing that reads as an operator's stop. The wake is put on the store's inbox before the node starts.
 */
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { mentionWake, queueWake } from '../harness/wake.js';
import { ensureCatalogue, openMemoryBus, Streams, Subjects } from '../../bus/index.js';
import { defaultLimits } from '../../actors/seat/seat.limits.js';
import { agentId, EventRecord, Payloads, SpendRecord, uuidv5 } from '../../schema/index.js';
import { startLlmServer, type LlmServer } from '../fixtures/llm/llm-server.js';
import type { Step } from '../fixtures/llm/script.js';
import { bootNode, storeDir, type BootedNode, type StoreDir } from '../harness/serve-store.js';
import { localProviders } from '../fixtures/llm/providers.js';
import { ledgerLines, ticketsServer } from './fixtures/tickets.js';

const decode = (data: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(data));

const plan: Step = {
  kind: 'text',
  text: '{"decision":"plan","steps":["file the ticket"],"success_criteria":["filed"],"tools":["tickets_create_ticket"]}',
  usage: { prompt_tokens: 100, completion_tokens: 20 },
};
const call = (args: Record<string, unknown>): Step => ({
  kind: 'tool_calls',
  calls: [{ id: 'c1', name: 'tickets_create_ticket', arguments: args }],
  usage: { prompt_tokens: 120, completion_tokens: 10 },
});
const account: Step = {
  kind: 'text',
  text: 'Filed it.',
  usage: { prompt_tokens: 150, completion_tokens: 5 },
};
const review: Step = {
  kind: 'text',
  text: '{"verdict":"done","notes":"filed"}',
  usage: { prompt_tokens: 90, completion_tokens: 8 },
};
const turnTokens = 100 + 20 + 120 + 10 + 150 + 5 + 90 + 8;

interface Setup {
  /** The turn the pre-published wake runs. */
  readonly turnId: string;
  readonly store: StoreDir;
  readonly ledger: string;
  readonly llm: LlmServer;
  readonly wakeId: string;
}

async function setup(t: Test, script: Step[]): Promise<Setup> {
  const store = storeDir(t);
  const llm = await startLlmServer({ wire: 'openai', script });
  t.teardown(() => llm.close());
  // 1. the wake waits on the seat's inbox in the store the node will open
  const bus = await openMemoryBus({ storeDir: store.storeDir });
  await ensureCatalogue(bus);
  const wake = mentionWake('Please file a ticket');
  await queueWake(bus, 'ada', wake);
  await bus.close();
  const turnId = uuidv5(agentId('Acme', 'ada'), wake.id);
  return { turnId, store, ledger: join(store.dir, 'ledger.jsonl'), llm, wakeId: wake.id };
}

/** Boots a node on the store; the first boot stores the company (later ones apply it from the store). */
async function boot(t: Test, s: Setup, tierA = '', first = false): Promise<BootedNode> {
  const node = await bootNode(t, s.store, tierA);
  if (first) {
    const company = {
      name: 'Acme',
      timezone: 'UTC',
      providers: localProviders(s.llm.baseUrl),
      mcp_servers: [ticketsServer(s.ledger)],
      roles: [{ name: 'Ada', goal: 'Keep the tracker tidy' }],
    };
    const put = await node.call('PUT', '/config', {
      body: JSON.stringify(company),
      headers: { 'content-type': 'application/json', 'x-summary': 'resume test' },
    });
    t.equal(put.status, 201, 'the company is stored');
  }
  return node;
}

/** Reads the store once no node holds it: every event and spend record. */
async function stored(s: Setup): Promise<{ events: EventRecord[]; spend: SpendRecord[] }> {
  const bus = await openMemoryBus({ storeDir: s.store.storeDir });
  try {
    const events: EventRecord[] = [];
    for await (const msg of bus.replay(Streams.Events)) events.push(EventRecord.parse(decode(msg.data)));
    const spend: SpendRecord[] = [];
    for await (const msg of bus.replay(Streams.Spend)) spend.push(SpendRecord.parse(decode(msg.data)));
    return { events, spend };
  } finally {
    await bus.close();
  }
}

/** One completion, each phase started and recorded once, and every figure the same. */
async function oneTruth(t: Test, s: Setup): Promise<void> {
  const { events, spend } = await stored(s);
  const of = (type: string) => events.filter((e) => e.type === type);
  const completed = of('agent_turn_completed');
  t.equal(completed.length, 1, 'one completion');
  const turn = Payloads.AgentTurnCompleted.parse(completed[0]!.payload);
  t.equal(turn.failed, false);
  t.same(turn.phases, ['plan', 'execute', 'review']);
  t.equal(turn.total_tokens, turnTokens, 'the completion counts every model call once');
  t.same(
    of('agent_phase_started').map((e) => e.payload['phase']),
    ['plan', 'execute', 'review'],
    'no phase started twice, no orphan start',
  );
  const phases = of('agent_phase_completed').map((e) => Payloads.AgentPhaseCompleted.parse(e.payload));
  t.same(
    phases.map((p) => [p.phase, p.failed]),
    [
      ['plan', false],
      ['execute', false],
      ['review', false],
    ],
    'each phase recorded once, none failed',
  );
  t.equal(
    phases.reduce((n, p) => n + p.input_tokens + p.output_tokens, 0),
    turnTokens,
    'phase records: input + output add up to the completion',
  );
  t.equal(
    spend.filter((r) => r.turn_id === turn.turn_id).reduce((n, r) => n + r.total_tokens, 0),
    turnTokens,
    'spend adds up to the completion',
  );
  t.notMatch(JSON.stringify(events), /the turn was stopped/, 'nothing reads as an operator stop');
}

/** The node's reads of the turn tell the same figures: `/query/turn`, `/query/phases`, `/tokens/breakdown`. */
async function readsAgree(t: Test, node: BootedNode, turnId: string): Promise<void> {
  // The read models follow the stored events: asked until the completion has reached them.
  let answer: Response = await node.call('GET', `/query/turn?turn_id=${turnId}`);
  for (let tries = 0; answer.status === 404 && tries < 200; tries += 1)
    answer = await node.call('GET', `/query/turn?turn_id=${turnId}`);
  t.equal(answer.status, 200);
  const turn = (await answer.json()) as {
    phases: { phase: string }[];
    tokens: { total: number; input: number; output: number };
  };
  t.same(
    turn.phases.map((p) => p.phase),
    ['plan', 'execute', 'review'],
    '/query/turn: each phase once',
  );
  t.equal(turn.tokens.total, turnTokens, '/query/turn: the total');
  t.equal(turn.tokens.input + turn.tokens.output, turnTokens, '/query/turn: total = input + output');
  const phases = (await (await node.call('GET', `/query/phases?turn_id=${turnId}`)).json()) as {
    rows: { phase: string; failed: boolean }[];
  };
  t.same(
    phases.rows.map((r) => [r.phase, r.failed]),
    [
      ['plan', false],
      ['execute', false],
      ['review', false],
    ],
    '/query/phases: each phase once, none failed',
  );
  const breakdown = (await (await node.call('GET', '/tokens/breakdown')).json()) as {
    by_turn: { turn_id: string; total_tokens: number }[];
  };
  t.equal(
    breakdown.by_turn.find((r) => r.turn_id === turnId)?.total_tokens,
    turnTokens,
    '/tokens/breakdown: the same total',
  );
}

t.test(
  'kill -9 while an MCP tool call runs, then a restart: the turn resumes and the side effect happens once',
  async (t) => {
    const s = await setup(t, [plan, call({ title: 'T-1', hold: true }), account, review]);
    const first = await boot(t, s, '', true);
    await first.run.waitForLog(
      (l) => l.msg === 'tool server stderr' && /^holding create_ticket/m.test(String(l['stderr'])),
    );
    first.run.kill('SIGKILL');
    await first.run.exited;
    t.equal(ledgerLines(s.ledger).length, 1, 'the ticket was created before the kill');

    const second = await boot(t, s);
    await second.run.waitForLog((l) => l.msg === 'turn resumed');
    await second.run.waitForLog((l) => l.msg === 'turn completed');
    await readsAgree(t, second, s.turnId);
    t.equal(await second.stop(), 0, 'the restarted node drains and exits 0');

    t.equal(ledgerLines(s.ledger).length, 1, 'the ticket was not created again');
    t.equal(s.llm.requests.length, 4, 'plan and the tool-calling answer were not asked again');
    t.match(JSON.stringify(s.llm.requests[2]!.body), /outcome unknown — check before retrying/);
    await oneTruth(t, s);
  },
);

t.test('SIGTERM while the model answers: the turn finishes within the drain grace', async (t) => {
  const s = await setup(t, [{ ...plan, hold: 'plan' }, call({ title: 'T-2' }), account, review]);
  const node = await boot(t, s, 'node: {turn_grace_seconds: 60}', true);
  await s.llm.waitForRequests(1);
  node.run.kill('SIGTERM');
  await node.run.waitForLog((l) => l.msg === 'drain started');
  s.llm.release('plan');
  t.equal(await node.run.exited, 0, 'the node exits 0 once the turn is done');
  t.ok(
    node.run.lines.some((l) => l.msg === 'turn completed'),
    'the turn completed before the node exited',
  );
  t.notOk(node.run.lines.some((l) => l.msg === 'turn cut for shutdown; handed over'));
  t.equal(ledgerLines(s.ledger).length, 1);
  t.equal(s.llm.requests.length, 4);
  await oneTruth(t, s);
});

t.test(
  'SIGTERM while the model answers past the grace: the turn is handed over, not failed, and the next start finishes it',
  async (t) => {
    const s = await setup(t, [{ ...plan, hold: 'never' }, plan, call({ title: 'T-3' }), account, review]);
    const first = await boot(t, s, 'node: {turn_grace_seconds: 1}', true);
    await s.llm.waitForRequests(1);
    first.run.kill('SIGTERM');
    await first.run.waitForLog((l) => l.msg === 'turn cut for shutdown; handed over');
    t.equal(await first.run.exited, 0);
    const cut = await stored(s);
    t.notOk(
      cut.events.some((e) => e.type === 'agent_turn_completed' || e.type === 'agent_phase_completed'),
      'the cut recorded no failure and no completion',
    );

    const second = await boot(t, s);
    await second.run.waitForLog((l) => l.msg === 'turn completed');
    t.equal(await second.stop(), 0);
    t.equal(s.llm.requests.length, 5, 'only the unanswered model call was asked again');
    t.equal(ledgerLines(s.ledger).length, 1);
    await oneTruth(t, s);
  },
);

t.test(
  'kill -9 while the model answers, then a restart: only the unanswered call is asked again, the tool ran once',
  async (t) => {
    const s = await setup(t, [plan, call({ title: 'T-4' }), { ...account, hold: 'never' }, account, review]);
    const first = await boot(t, s, '', true);
    await s.llm.waitForRequests(3);
    t.equal(ledgerLines(s.ledger).length, 1, 'the ticket was created before the kill');
    first.run.kill('SIGKILL');
    await first.run.exited;

    const second = await boot(t, s);
    await second.run.waitForLog((l) => l.msg === 'turn resumed');
    await second.run.waitForLog((l) => l.msg === 'turn completed');
    await readsAgree(t, second, s.turnId);
    t.equal(await second.stop(), 0);

    t.equal(ledgerLines(s.ledger).length, 1, 'the ticket was not created again');
    t.equal(s.llm.requests.length, 5, 'plan and the tool-calling answer were not asked again');
    const messages = (n: number) =>
      JSON.stringify((s.llm.requests[n]!.body as { messages: unknown }).messages);
    t.equal(
      messages(3),
      messages(2),
      'the call asked again is the one cut: the recorded rounds replayed as they were',
    );
    await oneTruth(t, s);
  },
);

/**
 * What a node killed -9 between an answer that failed mid-stream and the store of its spend leaves: the
 * turn's journal up to the failed answer's `unfinished` record (the cut plan answer, 6 output tokens
 * estimated), and — with `stored` — the spend record too, when the kill came after its store. The kill cannot
 * be timed between two bus writes from outside, so the state is written as that node wrote it; the next
 * start finds it as it would after the kill.
 */
async function killedMidFailure(s: Setup, wakeId: string, stored: boolean): Promise<SpendRecord> {
  const at = new Date().toISOString();
  const spend: SpendRecord = {
    id: 'cut-answer-spend',
    timestamp: at,
    node: 'node-0',
    handle: 'ada',
    agent_id: agentId('Acme', 'ada'),
    role: 'Ada',
    turn_id: s.turnId,
    phase: 'plan',
    worker: null,
    provider: 'local',
    model: 'local-1',
    input_tokens: 70,
    output_tokens: 6,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    total_tokens: 76,
    estimated: true,
  };
  const bus = await openMemoryBus({ storeDir: s.store.storeDir });
  try {
    const subject = Subjects.turnJournal('ada', s.turnId);
    const write = (msgId: string, record: Record<string, unknown>) =>
      bus.publish(subject, new TextEncoder().encode(JSON.stringify({ ...record, at, node: 'node-0' })), {
        msgId,
      });
    const where = { phase: 'plan', iteration: 0 };
    await write(`${s.turnId}:turn`, { kind: 'turn_started', wake_id: wakeId, limits: defaultLimits });
    await write(`${s.turnId}:plan.0:phase_started`, {
      kind: 'phase_started',
      ...where,
      started_at: at,
      max_rounds: defaultLimits.plan_rounds,
    });
    await write(`${s.turnId}:plan.0:unfinished:-1:${spend.id}`, {
      kind: 'unfinished',
      ...where,
      round: -1,
      spend: [spend],
    });
    if (stored)
      await bus.publish(Subjects.spend('llm'), new TextEncoder().encode(JSON.stringify(spend)), {
        msgId: spend.id,
      });
  } finally {
    await bus.close();
  }
  return spend;
}

for (const spent of [false, true])
  t.test(
    spent
      ? 'kill -9 after a mid-stream failure stored its spend, before the phase failed on record: the restart does not count it twice'
      : 'kill -9 between an answer that failed mid-stream and the store of its spend: the restart stores the journaled spend once',
    async (t) => {
      const s = await setup(t, [plan, call({ title: spent ? 'T-6' : 'T-5' }), account, review]);
      const cut = await killedMidFailure(s, s.wakeId, spent);
      const node = await boot(t, s, '', true);
      await node.run.waitForLog((l) => l.msg === 'turn resumed');
      await node.run.waitForLog((l) => l.msg === 'turn completed');
      const breakdown = await (async () => {
        // The read models follow the stored records: asked until the completion has reached them.
        for (let tries = 0; ; tries += 1) {
          const answer = (await (await node.call('GET', '/tokens/breakdown')).json()) as {
            by_turn: { turn_id: string; total_tokens: number; estimated_tokens?: number }[];
          };
          const row = answer.by_turn.find((r) => r.turn_id === s.turnId);
          if ((row && row.total_tokens >= turnTokens) || tries >= 200) return row;
        }
      })();
      t.equal(
        breakdown?.total_tokens,
        turnTokens + cut.total_tokens,
        '/tokens/breakdown: the cut answer once',
      );
      t.equal(breakdown?.estimated_tokens, cut.total_tokens, 'and estimated');
      t.equal(await node.stop(), 0);

      const { spend } = await stored(s);
      const cutRecords = spend.filter((r) => r.id === cut.id);
      t.equal(cutRecords.length, 1, 'the cut answer spend is stored once');
      t.match(cutRecords[0], { estimated: true, total_tokens: 76, phase: 'plan' });
      t.equal(
        spend.filter((r) => r.turn_id === s.turnId).reduce((n, r) => n + r.total_tokens, 0),
        turnTokens + cut.total_tokens,
        'the turn spend: every answered call and the cut one, each once',
      );
      t.equal(s.llm.requests.length, 4, 'the failed call is asked again, nothing else twice');
    },
  );
