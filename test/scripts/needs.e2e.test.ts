/**
 * A seat's open needs are event-sourced: `ask_human` appends to the seat's log (`SVC_SEATS`) before the
 * seat machine holds the question, and a node that takes the seat up rebuilds the machine from that log.
 * On real `svc serve` children over one store: a turn asks a human, the node is killed (-9) while the
 * model writes its account, a restart resumes the turn, and the seat reads the same question — in its
 * completion, on its agent row — asked once. An unrelated wake whose turn decides `skip` leaves the
 * question open; a wake from the asked human answers it, and the row follows after another restart.
 */
import t, { type Test } from 'tap';
import { mentionWake, queueWake } from '../harness/wake.js';
import { ensureCatalogue, openMemoryBus, Streams, Subjects } from '../../bus/index.js';
import { agentId, EventRecord, Payloads, uuidv5, type InboxMessage } from '../../schema/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import type { Step } from '../fixtures/llm/script.js';
import { bootNode, storeDir, type BootedNode, type StoreDir } from '../harness/serve-store.js';
import { localProviders } from '../fixtures/llm/providers.js';

const decode = (data: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(data));
const usage = { prompt_tokens: 10, completion_tokens: 5 };
const question = 'Which branch do we release from?';
const script: Step[] = [
  {
    kind: 'text',
    text: '{"decision":"plan","steps":["ask Hu"],"success_criteria":["asked"],"tools":["ask_human"]}',
    usage,
  },
  {
    kind: 'tool_calls',
    calls: [{ id: 'a1', name: 'ask_human', arguments: { to: 'hu', question, urgency: 'high' } }],
    usage,
  },
  // The account the first node never receives: it is killed while this answer is held.
  { kind: 'text', text: 'Asked Hu.', usage, hold: 'never' },
  { kind: 'text', text: 'Asked Hu about the branch.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"asked"}', usage },
  // A schedule fires: nothing to do.
  { kind: 'text', text: '{"decision":"skip"}', usage },
  // Hu's answer wakes the seat.
  { kind: 'text', text: '{"decision":"skip"}', usage },
];

const wakeOf = (over: Partial<InboxMessage> = {}): InboxMessage =>
  mentionWake('Find out the release branch', over);

/** Queues a wake in the store while no node holds it. */
async function publishWake(store: StoreDir, wake: InboxMessage): Promise<void> {
  const bus = await openMemoryBus({ storeDir: store.storeDir });
  await ensureCatalogue(bus);
  await queueWake(bus, 'ada', wake);
  await bus.close();
}

async function wakeWaiting(store: StoreDir): Promise<string> {
  const wake = wakeOf();
  await publishWake(store, wake);
  return uuidv5(agentId('Acme', 'ada'), wake.id);
}

/** Reads the store once no node holds it. */
async function stored(store: StoreDir): Promise<{ events: EventRecord[]; seatLog: unknown[] }> {
  const bus = await openMemoryBus({ storeDir: store.storeDir });
  try {
    const events: EventRecord[] = [];
    for await (const msg of bus.replay(Streams.Events)) events.push(EventRecord.parse(decode(msg.data)));
    const seatLog: unknown[] = [];
    for await (const msg of bus.replay(Streams.Seats, { subject: Subjects.seatLog('ada') }))
      seatLog.push(decode(msg.data));
    return { events, seatLog };
  } finally {
    await bus.close();
  }
}

interface Row {
  activity: string;
  last_turn: { turn_id: string } | null;
}

async function agentRow(node: BootedNode, until: (row: Row) => boolean) {
  for (let tries = 0; ; tries += 1) {
    const row = (await (await node.call('GET', '/agents/ada')).json()) as Row;
    if (until(row) || tries >= 200) return row;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

t.test(
  'kill -9 after ask_human, then a restart: the seat still waits on the same question',
  async (t: Test) => {
    const store = storeDir(t);
    const llm = await startLlmServer({ wire: 'openai', script });
    t.teardown(() => llm.close());
    const turnId = await wakeWaiting(store);

    const first = await bootNode(t, store, '');
    const company = {
      name: 'Acme',
      timezone: 'UTC',
      providers: localProviders(llm.baseUrl),
      roles: [{ name: 'Ada' }, { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } }],
    };
    const put = await first.call('PUT', '/config', {
      body: JSON.stringify(company),
      headers: { 'content-type': 'application/json', 'x-summary': 'needs test' },
    });
    t.equal(put.status, 201);
    await llm.waitForRequests(3);
    first.run.kill('SIGKILL');
    await first.run.exited;
    const cut = await stored(store);
    t.equal(cut.events.filter((e) => e.type === 'human_asked').length, 1, 'asked before the kill');
    t.match(cut.seatLog, [{ kind: 'need_recorded', need: { to: 'hu', question, turn_id: turnId } }]);

    const second = await bootNode(t, store, '');
    await second.run.waitForLog((l) => l.msg === 'turn resumed');
    await second.run.waitForLog((l) => l.msg === 'turn completed');
    const row = await agentRow(second, (r) => r.activity === 'needs');
    t.equal(row.activity, 'needs', 'the agent row reads the wait after the restart');
    t.equal(await second.stop(), 0);

    const { events, seatLog } = await stored(store);
    const completed = events.filter((e) => e.type === 'agent_turn_completed');
    t.equal(completed.length, 1, 'one completion');
    const needId = (seatLog[0] as { need: { id: string } }).need.id;
    t.match(Payloads.AgentTurnCompleted.parse(completed[0]!.payload).needs, {
      reason: question,
      audience: 'hu',
      ids: [needId],
      raised: [needId],
    });
    t.equal(events.filter((e) => e.type === 'human_asked').length, 1, 'the question was asked once');
    t.match(seatLog, [{ kind: 'need_recorded', need: { id: needId } }], 'recorded once');
    t.equal(seatLog.length, 1, 'the completion closes nothing: the question waits for its answer');

    // An unrelated wake (a schedule) runs a turn that decides skip: the seat still waits on Hu.
    const schedule = wakeOf({ kind: 'schedule', source: 'schedule:daily', summary: 'daily check' });
    await publishWake(store, schedule);
    const scheduled = uuidv5(agentId('Acme', 'ada'), schedule.id);
    const third = await bootNode(t, store, '');
    const afterSkip = await agentRow(third, (r) => r.last_turn?.turn_id === scheduled);
    t.equal(afterSkip.activity, 'needs', 'a skip turn leaves the question open');
    t.equal(await third.stop(), 0);

    // Hu answers (a message from the asked human): the turn it wakes closes the question.
    const answer = wakeOf({ summary: 'main, as always', from: 'hu' });
    await publishWake(store, answer);
    const fourth = await bootNode(t, store, '');
    const answered = await agentRow(
      fourth,
      (r) => r.last_turn?.turn_id === uuidv5(agentId('Acme', 'ada'), answer.id),
    );
    t.equal(answered.activity, 'idle', 'answered: the seat waits on nobody');
    t.equal(await fourth.stop(), 0);

    // A restart rebuilds the same answer, from the seat's log and the events' replay.
    const fifth = await bootNode(t, store, '');
    t.equal((await agentRow(fifth, (r) => r.activity === 'idle')).activity, 'idle');
    t.equal(await fifth.stop(), 0);
    const last = await stored(store);
    t.match(last.seatLog, [
      { kind: 'need_recorded', need: { id: needId } },
      { kind: 'needs_closed', cause: 'answered', ids: [needId], by: 'hu', key: `answered:${answer.id}` },
    ]);
    const record = last.events.find((e) => e.type === 'human_answered');
    t.match(record?.payload, { need_ids: [needId], by: 'hu', wake_id: answer.id, remaining: null });
    const skipTurn = last.events.find(
      (e) => e.type === 'agent_turn_completed' && (e.payload as { turn_id: string }).turn_id === scheduled,
    );
    t.match(skipTurn?.payload, { needs: { ids: [needId], raised: [] } }, 'the skip turn restated the wait');
  },
);

t.test('an operator’s clear outlives a restart: the rebuilt row waits on nobody', async (t: Test) => {
  const store = storeDir(t);
  const llm = await startLlmServer({
    wire: 'openai',
    script: [script[0]!, script[1]!, { kind: 'text', text: 'Asked Hu.', usage }, script[4]!],
  });
  t.teardown(() => llm.close());
  const turnId = await wakeWaiting(store);
  const first = await bootNode(t, store, '');
  const company = {
    name: 'Acme',
    timezone: 'UTC',
    providers: localProviders(llm.baseUrl),
    roles: [{ name: 'Ada' }, { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } }],
  };
  const put = await first.call('PUT', '/config', {
    body: JSON.stringify(company),
    headers: { 'content-type': 'application/json', 'x-summary': 'needs test' },
  });
  t.equal(put.status, 201);
  const asking = await agentRow(first, (r) => r.last_turn?.turn_id === turnId);
  t.equal(asking.activity, 'needs');
  const clear = await first.call('POST', '/agents/ada/needs/clear', {
    body: '{}',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(clear.status, 200);
  t.match(await clear.json(), { id: 'ada', cleared: [String], open: [] });
  t.equal((await agentRow(first, (r) => r.activity === 'idle')).activity, 'idle');
  t.equal(await first.stop(), 0);

  // The replay folds the clearing record before the older completion that raised the question.
  const second = await bootNode(t, store, '');
  const rebuilt = await agentRow(second, (r) => r.last_turn?.turn_id === turnId);
  t.equal(rebuilt.activity, 'idle', 'the cleared question does not come back');
  t.equal(await second.stop(), 0);
});
