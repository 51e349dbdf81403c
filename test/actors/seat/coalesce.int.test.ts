/**
 * Inbox batching (`notification_coalesce_window_seconds`, `notification_coalesce_max_batch`): a burst of
 * notification wakes for one seat runs one turn that names each of them, at most the batch size a turn;
 * a wake from another sender waits for a turn of its own; the absorbed wakes are acknowledged without a turn
 * and recorded done; a turn cut mid-batch resumes over the same store with the same wakes.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { seatKeys } from '../../../actors/index.js';
import { openBus, Streams, Subjects, type Bus } from '../../../bus/index.js';
import { agentId, Payloads, uuidv5, type InboxMessage } from '../../../schema/index.js';
import { eventually } from '../../bus/contract-helpers.js';
import type { Step } from '../../fixtures/llm/script.js';
import { startNatsServer } from '../../harness/nats-server.js';
import { cleanTurn, startCompany, type Harness } from './harness.js';

const windowed = (seconds: number, maxBatch: number) => ({
  notification_coalesce_window_seconds: seconds,
  notification_coalesce_max_batch: maxBatch,
});

async function notify(h: Harness, summary: string, from?: string): Promise<string> {
  const message: InboxMessage = {
    id: randomUUID(),
    kind: 'notification',
    source: 'webhook:tracker-b',
    received_at: new Date().toISOString(),
    trace_id: randomUUID().replaceAll('-', ''),
    summary,
    payload: { notification: { summary } },
    ...(from ? { from } : {}),
  };
  await h.bus.publish(Subjects.agentInbox('ada'), new TextEncoder().encode(JSON.stringify(message)));
  return message.id;
}

/** The prompt text of the LLM request `i` (every message's content joined). */
function promptOf(h: Harness, i: number): string {
  const body = h.llm.requests[i]?.body as { messages?: Array<{ content?: unknown }> } | undefined;
  return (body?.messages ?? []).map((m) => JSON.stringify(m.content)).join('\n');
}

const adaTurn = (wakeId: string): string => uuidv5(agentId('Acme', 'ada'), wakeId);

/** Resolves once every wake has left the work-queue inbox (acknowledged). */
async function inboxEmptied(t: Test, h: Harness): Promise<void> {
  const emptied = await eventually(
    async () => (await h.bus.streamInfo(Streams.Inbox)).messages === 0,
    20_000,
  );
  t.ok(emptied, 'every wake acknowledged');
}

async function burst(t: Test, openBus?: () => Promise<Bus>): Promise<void> {
  const h = await startCompany(t, {
    script: [...cleanTurn, ...cleanTurn],
    extra: windowed(1, 3),
    ...(openBus ? { openBus } : {}),
  });
  const ids = [
    await notify(h, 'Issue A-1 updated'),
    await notify(h, 'Issue A-2 updated'),
    await notify(h, 'Hu wrote: can you look?', 'hu'),
    await notify(h, 'Issue A-3 updated'),
  ];
  await h.llm.waitForRequests(8);
  // Every wake acknowledged: the turns completed, and the absorbed wakes were taken too.
  await inboxEmptied(t, h);
  const completed = await h.events('agent_turn_completed');
  t.equal(completed.length, 2, 'two turns for four wakes: the absorbed ones ran no turn of their own');
  t.match(promptOf(h, 0), /3 notifications/);
  for (const summary of ['Issue A-1 updated', 'Issue A-2 updated', 'Issue A-3 updated'])
    t.match(promptOf(h, 0), summary, `the batched turn names "${summary}"`);
  t.notMatch(promptOf(h, 0), /Hu wrote/, "another sender's message is not in the batch");
  t.match(promptOf(h, 4), /Hu wrote/, 'it runs a turn of its own');

  const first = Payloads.AgentTurnCompleted.parse(completed[0]!.payload);
  t.equal(first.turn_id, adaTurn(ids[0]!), 'the batch runs as the first wake’s turn');
  for (const id of [ids[1]!, ids[3]!]) {
    const entry = await h.catalogue.turnsDone.get(seatKeys.turnDone('ada', adaTurn(id)));
    t.ok(entry, 'an absorbed wake is recorded done');
    t.match(JSON.parse(new TextDecoder().decode(entry!.value)), { absorbed_by: first.turn_id });
  }
}

t.test(
  'a burst of notifications runs one turn per batch that names each; another sender waits for its own turn',
  (t) => burst(t),
);

t.test('on JetStream too: the waiting wakes are read beside the seat’s own consumer', async (t) => {
  const server = await startNatsServer({ t });
  await burst(t, () => openBus({ type: 'jetstream', url: server.url }));
});

t.test('without a window every notification runs its own turn', async (t) => {
  const h = await startCompany(t, { script: [...cleanTurn, ...cleanTurn] });
  await notify(h, 'Issue B-1 updated');
  await notify(h, 'Issue B-2 updated');
  await h.llm.waitForRequests(8);
  t.match(promptOf(h, 0), /Issue B-1 updated/);
  t.notMatch(promptOf(h, 0), /Issue B-2 updated/);
  t.match(promptOf(h, 4), /Issue B-2 updated/);
  await inboxEmptied(t, h);
  t.equal((await h.events('agent_turn_completed')).length, 2);
});

function storeDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-coalesce-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'data');
}

t.test('a batched turn cut before it completed resumes with the same wakes', async (t) => {
  const dir = storeDir(t);
  const held: Step = { ...cleanTurn[0]!, hold: 'plan' };
  const first = await startCompany(t, { script: [held], storeDir: dir, extra: windowed(0.5, 5) });
  const ids = [await notify(first, 'Issue C-1 updated'), await notify(first, 'Issue C-2 updated')];
  await first.llm.waitForRequests(1);
  t.match(promptOf(first, 0), /Issue C-2 updated/, 'the first run batched both');
  await first.stopSeats();
  await first.bus.close();

  const second = await startCompany(t, { script: cleanTurn, storeDir: dir, extra: windowed(0.5, 5) });
  await second.llm.waitForRequests(4);
  for (const summary of ['Issue C-1 updated', 'Issue C-2 updated'])
    t.match(promptOf(second, 0), summary, `the resumed turn names "${summary}"`);
  await inboxEmptied(t, second);
  const completed = await second.events('agent_turn_completed');
  t.equal(completed.length, 1, 'one turn for both, across the restart');
  t.equal(Payloads.AgentTurnCompleted.parse(completed[0]!.payload).turn_id, adaTurn(ids[0]!));
  t.ok(await second.catalogue.turnsDone.get(seatKeys.turnDone('ada', adaTurn(ids[1]!))));
});
