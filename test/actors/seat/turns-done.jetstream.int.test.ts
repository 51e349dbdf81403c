/**
 * The record of a completed turn on a real nats-server: it keeps a repeated wake from running again
 * while it lives, and the server drops it once it is older than the `svc_turns_done` bucket's max age.
 */
import t from 'tap';
import { seatKeys } from '../../../actors/index.js';
import { Buckets, openBus } from '../../../bus/index.js';
import { agentId, uuidv5 } from '../../../schema/index.js';
import { eventually } from '../../bus/contract-helpers.js';
import { startNatsServer } from '../../harness/nats-server.js';
import { cleanTurn, startCompany } from './harness.js';
import { recordedDone } from './wakes.js';

const skip = { kind: 'text' as const, text: '{"decision":"skip"}' };
const turnOf = (wakeId: string): string => uuidv5(agentId('Acme', 'ada'), wakeId);

t.test('on JetStream a wake id that already completed is acknowledged without a second turn', async (t) => {
  const server = await startNatsServer({ t });
  const h = await startCompany(t, {
    script: [...cleanTurn, skip],
    openBus: () => openBus({ type: 'jetstream', url: server.url }),
  });
  await h.wake('ada', 'same');
  await h.waitFor((e) => e.type === 'agent_turn_completed');
  await h.wake('ada', 'same');
  // The inbox is taken in order: once the next wake's turn is stored, the repeat was handled.
  await h.wake('ada', 'other');
  await h.waitFor((e) => e.type === 'agent_turn_completed' && e.payload['turn_id'] === turnOf('other'));
  t.equal((await h.events('agent_turn_completed')).length, 2);
  t.equal(h.llm.requests.length, 5, 'the repeated wake made no model call');
});

t.test('on JetStream a completed turn’s record is dropped by the server once past its age', async (t) => {
  const server = await startNatsServer({ t });
  const h = await startCompany(t, {
    script: [skip],
    openBus: () => openBus({ type: 'jetstream', url: server.url }),
    catalogue: { turnsDoneTtlMs: 1_000 },
  });
  await h.wake('ada', 'short-lived');
  await recordedDone(h, 'ada', turnOf('short-lived'));
  const key = seatKeys.turnDone('ada', turnOf('short-lived'));
  // Expiry has no event to wait on: poll the bucket's stream until the server removed the record.
  const gone = await eventually(
    async () => (await h.bus.streamInfo(`KV_${Buckets.TurnsDone}`)).messages === 0,
    10_000,
  );
  t.ok(gone, 'the server removed the record');
  t.equal(await h.catalogue.turnsDone.get(key), null);
});
