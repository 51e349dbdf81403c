/**
 * A turn resumed from its journal stands on what the current lease holder recorded: a record a superseded
 * holder handed to the socket before a long pause, stored after a record of a higher epoch, is ignored;
 * its own records stored before the takeover, and records without the header, are read. On both engines.
 */
import t, { type Test } from 'tap';
import { ensureCatalogue, openBus, openMemoryBus, Subjects, type Bus } from '../../../bus/index.js';
import { leaseHeaders } from '../../../actors/lease/index.js';
import { openTurn } from '../../../actors/seat/turn.resume.js';
import { journalWriter, type JournalEntry } from '../../../actors/seat/turn.journal.js';
import { startNatsServer } from '../../harness/nats-server.js';

const stamp = { at: '2026-12-05T10:00:00.000Z', node: 'node-old' };
const now = () => new Date(stamp.at);
const encode = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
const limits = {
  plan_rounds: 4,
  execute_rounds: 8,
  plan_ceiling: 8,
  execute_ceiling: 16,
  extension_enabled: false,
  extension_step: 0,
  max_iterations: 2,
};

async function busFor(t: Test, engine: 'memory' | 'jetstream'): Promise<Bus> {
  const bus =
    engine === 'memory'
      ? await openMemoryBus()
      : await openBus({ type: 'jetstream', url: (await startNatsServer({ t })).url });
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  return bus;
}

const holder = (bus: Bus, epoch: number, node: string) =>
  journalWriter({ bus, handle: 'ada', turnId: 'turn-1', node, fence: () => undefined, now, headers: leaseHeaders(epoch) }); // prettier-ignore

/** A record as a paused holder's write lands: straight on the bus, with the headers it was sent with. */
const land = (bus: Bus, entry: JournalEntry, headers?: Record<string, string>) =>
  bus.publish(
    Subjects.turnJournal('ada', 'turn-1'),
    encode({ ...entry, ...stamp }),
    headers ? { headers } : {},
  );

for (const engine of ['memory', 'jetstream'] as const) {
  t.test(`${engine}: a resumed turn ignores a superseded holder's late journal record`, async (t) => {
    const bus = await busFor(t, engine);
    // The old holder (epoch 1) started the turn; the new one (epoch 2) took it over and started the plan.
    await holder(bus, 1, 'node-old').write({ kind: 'turn_started', wake_id: 'w1', limits });
    await holder(bus, 2, 'node-new').write({
      kind: 'phase_started',
      phase: 'plan',
      iteration: 0,
      started_at: stamp.at,
      max_rounds: 4,
    });
    // The old holder's plan outcome, handed to the socket before its pause, lands now.
    const done: JournalEntry = {
      kind: 'phase_completed',
      phase: 'plan',
      iteration: 0,
      outcome: { phase: 'plan', decision: 'skip', plan: '' },
      tokens: 10,
      tools: [],
    };
    await land(bus, done, { 'Svc-Lease-Epoch': '1' });
    await land(bus, { kind: 'cut', reason: 'shutdown' });

    const opened = await openTurn({ bus, handle: 'ada', turnId: 'turn-1', node: 'node-next', fence: () => undefined, now, headers: leaseHeaders(3) }); // prettier-ignore
    const prior = opened.prior;
    t.ok(prior, 'the turn resumes from its journal');
    t.equal(prior?.started?.wake_id, 'w1', 'the old holder’s record stored before the takeover is read');
    t.ok(prior?.phase('plan', 0)?.started, 'the new holder’s phase start is read');
    t.equal(prior?.phase('plan', 0)?.completed, null, 'the late outcome is ignored: the plan runs again');
    t.equal(prior?.cuts.length, 1, 'the record without the header is read');
    t.equal(prior?.records, 3);
  });
}
