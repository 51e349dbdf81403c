/**
 * Inbox batching (`notification_coalesce_window_seconds`) on a served node talking to a local
 * OpenAI-wire model over a real nats-server: notifications received within a seat's window wake it once
 * with all of them; one received after that window starts a wake of its own even when it already waits in
 * the inbox; a window of 0 runs a turn per notification; a node killed mid-window and started again runs
 * the batch once, losing and doubling nothing.
 */
import t, { type Test } from 'tap';
import { ensureCatalogue, openBus, Streams, type Bus } from '../../bus/index.js';
import { agentId, EventRecord, Payloads, uuidv5, type InboxMessage } from '../../schema/index.js';
import { startLlmServer, type LlmServer } from '../fixtures/llm/llm-server.js';
import { localProviders } from '../fixtures/llm/providers.js';
import { startNatsServer } from '../harness/nats-server.js';
import { startNode, TOKEN, type ServedNode } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';

const decode = (data: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(data));

/** Every request answered with a review verdict: each phase reads it and the turn ends clean. */
const answering = (): Promise<LlmServer> =>
  startLlmServer({
    wire: 'openai',
    script: () => ({
      kind: 'text',
      text: '{"verdict":"done","notes":"ok"}',
      usage: { prompt_tokens: 10, completion_tokens: 2 },
    }),
  });

async function apply(node: ServedNode, llm: LlmServer, windowSeconds: number): Promise<void> {
  const res = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'window' },
    body: JSON.stringify({
      name: 'Acme',
      timezone: 'UTC',
      providers: localProviders(llm.baseUrl),
      notification_coalesce_window_seconds: windowSeconds,
      notification_coalesce_max_batch: 10,
      roles: [{ name: 'Ada' }],
    }),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`apply: ${res.status} ${await res.text()}`);
}

/** A notification wake received `agoMs` before now. */
const notification = (summary: string, agoMs = 0): InboxMessage =>
  mentionWake(summary, {
    kind: 'notification',
    source: 'webhook:tracker-b',
    received_at: new Date(Date.now() - agoMs).toISOString(),
  });

/** The completed turns of Ada stored so far, oldest first. */
async function completedTurns(bus: Bus): Promise<Payloads.AgentTurnCompleted[]> {
  const turns: Payloads.AgentTurnCompleted[] = [];
  for await (const msg of bus.replay(Streams.Events)) {
    const e = EventRecord.parse(decode(msg.data));
    if (e.type === 'agent_turn_completed' && e.agent_id !== undefined)
      turns.push(Payloads.AgentTurnCompleted.parse(e.payload));
  }
  return turns;
}

/** The summaries each turn's first model call (its plan) was woken by, one list per turn, in order. */
function plannedWith(llm: LlmServer, summaries: readonly string[]): string[][] {
  const plans = llm.requests.filter((r) => JSON.stringify(r.body).includes('plan'));
  const seen: string[][] = [];
  for (const r of plans) {
    const text = JSON.stringify(r.body);
    const named = summaries.filter((s) => text.includes(s));
    // Later phases of the same turn name the same wakes: one list per distinct set, in order.
    if (named.length > 0 && JSON.stringify(seen.at(-1)) !== JSON.stringify(named)) seen.push(named);
  }
  return seen;
}

async function setup(t: Test): Promise<{ bus: Bus; llm: LlmServer; natsUrl: string }> {
  const nats = await startNatsServer({ t });
  const llm = await answering();
  t.teardown(() => llm.close());
  const bus = await openBus({ type: 'jetstream', url: nats.url });
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  return { bus, llm, natsUrl: nats.url };
}

const inboxEmpty = async (bus: Bus): Promise<void> => {
  await until(
    async () => (await bus.streamInfo(Streams.Inbox)).messages,
    (n) => n === 0,
    30_000,
  );
};

t.test(
  'notifications within the window wake the seat once; one received after the window starts its own wake',
  async (t) => {
    const { bus, llm, natsUrl } = await setup(t);
    // Waiting before the seat exists: the first is taken with its window long passed, so what joins it is
    // decided by when each was received, not by when the seat got round to them.
    await queueWake(bus, 'ada', notification('Issue W-1 updated', 20_000));
    await queueWake(bus, 'ada', notification('Issue W-2 updated', 19_000));
    await queueWake(bus, 'ada', notification('Issue W-3 updated', 10_000));
    const node = await startNode(t, '', `jetstream, url: "${natsUrl}"`);
    await apply(node, llm, 2);
    await inboxEmpty(bus);
    const turns = await until(
      () => completedTurns(bus),
      (c) => c.length >= 2,
      30_000,
    );
    t.equal(turns.length, 2, 'two wakes for three notifications');
    t.same(
      plannedWith(llm, ['Issue W-1 updated', 'Issue W-2 updated', 'Issue W-3 updated']),
      [['Issue W-1 updated', 'Issue W-2 updated'], ['Issue W-3 updated']],
      'the two inside the window share a turn; the late one has its own',
    );
    t.ok(
      turns.every((c) => !c.failed),
      'both turns completed clean',
    );
  },
);

t.test('a window of 0 runs a turn per notification', async (t) => {
  const { bus, llm, natsUrl } = await setup(t);
  await queueWake(bus, 'ada', notification('Issue Z-1 updated', 1_000));
  await queueWake(bus, 'ada', notification('Issue Z-2 updated', 900));
  const node = await startNode(t, '', `jetstream, url: "${natsUrl}"`);
  await apply(node, llm, 0);
  await inboxEmpty(bus);
  const turns = await until(
    () => completedTurns(bus),
    (c) => c.length >= 2,
    30_000,
  );
  t.equal(turns.length, 2);
  t.same(plannedWith(llm, ['Issue Z-1 updated', 'Issue Z-2 updated']), [
    ['Issue Z-1 updated'],
    ['Issue Z-2 updated'],
  ]);
});

t.test('a node killed mid-window runs the batch once after it starts again', async (t) => {
  const { bus, llm, natsUrl } = await setup(t);
  const first = await startNode(t, '', `jetstream, url: "${natsUrl}"`);
  await apply(first, llm, 4);
  await first.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'ada');
  const a = notification('Issue R-1 updated');
  const b = notification('Issue R-2 updated');
  await queueWake(bus, 'ada', a);
  await queueWake(bus, 'ada', b);
  // The seat waits out a 4 s window from the first one's receipt: no model call can have been made yet.
  t.equal(llm.requests.length, 0, 'killed inside the window');
  first.run.kill('SIGKILL');
  await first.run.exited;

  const second = await startNode(t, '', `jetstream, url: "${natsUrl}"`);
  await second.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'ada');
  await inboxEmpty(bus);
  // A wake after the batch: its turn completing shows nothing of the batch is left to run.
  const c = mentionWake('Issue R-3 mentioned');
  await queueWake(bus, 'ada', c);
  await inboxEmpty(bus);
  const turns = await until(
    () => completedTurns(bus),
    (done) => done.some((x) => x.turn_id === uuidv5(agentId('Acme', 'ada'), c.id)),
    30_000,
  );
  t.equal(turns.length, 2, 'one turn for the batch, one for the later wake');
  t.same(plannedWith(llm, ['Issue R-1 updated', 'Issue R-2 updated', 'Issue R-3 mentioned']), [
    ['Issue R-1 updated', 'Issue R-2 updated'],
    ['Issue R-3 mentioned'],
  ]);
});
