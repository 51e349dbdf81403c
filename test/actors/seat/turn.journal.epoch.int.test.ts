/**
 * A turn resumed from its journal stands on what the current lease holder recorded: a record a superseded
 * holder handed to the socket before a long pause, stored after a record of a higher epoch, is ignored;
 * its own records stored before the takeover, and records without the header, are read. A holder resuming a
 * turn marks its epoch on the journal before it reads it, so a late record landing after that read — before
 * the holder's first write there — is ignored by every later reader as the holder, which never read it, did
 * not have it; one landing before the mark is read by all. On both engines.
 */
import t from 'tap';
import { Streams, Subjects, type Bus } from '../../../bus/index.js';
import { leaseHeaders } from '../../../actors/lease/index.js';
import { openTurn } from '../../../actors/seat/turn.resume.js';
import { journalWriter, type JournalEntry } from '../../../actors/seat/turn.journal.js';
import { busFor, engines } from './seat-log.fixture.js';

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

const holder = (bus: Bus, epoch: number, node: string) =>
  journalWriter({ bus, handle: 'ada', turnId: 'turn-1', node, fence: () => undefined, now, headers: leaseHeaders(epoch) }); // prettier-ignore

/** A record as a paused holder's write lands: straight on the bus, with the headers it was sent with. */
const land = (bus: Bus, entry: JournalEntry, headers?: Record<string, string>) =>
  bus.publish(
    Subjects.turnJournal('ada', 'turn-1'),
    encode({ ...entry, ...stamp }),
    headers ? { headers } : {},
  );

for (const engine of engines) {
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

/** An answer of the plan's first round, with its spend record. */
const round: JournalEntry = {
  kind: 'round',
  phase: 'plan',
  iteration: 0,
  round: 0,
  answer: {
    text: 'thinking',
    tool_calls: [],
    usage: { input_tokens: 10, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0 },
    model: 'm',
    provider: 'main',
    started_at: stamp.at,
    duration_ms: 5,
  },
  spend: {
    id: 'spend-0',
    timestamp: stamp.at,
    node: 'node-old',
    handle: 'ada',
    agent_id: 'agent-ada',
    role: 'Ada',
    turn_id: 'turn-1',
    phase: 'plan',
    worker: null,
    provider: 'main',
    model: 'm',
    input_tokens: 10,
    output_tokens: 2,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    total_tokens: 12,
  },
};

/** The turn as the holder of `epoch` resumes it. */
const resume = (bus: Bus, epoch: number) =>
  openTurn({ bus, handle: 'ada', turnId: 'turn-1', node: `node-${epoch}`, fence: () => undefined, now, headers: leaseHeaders(epoch) }); // prettier-ignore

for (const engine of engines) {
  t.test(
    `${engine}: a late record landing after a resuming holder read the journal, before its first write there, is ignored by every later reader; one landing before is read by all`,
    async (t) => {
      const bus = await busFor(t, engine);
      await holder(bus, 1, 'node-old').write({ kind: 'turn_started', wake_id: 'w1', limits });
      // The old holder's plan start and first answer, handed to the socket before its pause, land before the
      // new holder resumes the turn: every reader has them.
      await land(bus, { kind: 'phase_started', phase: 'plan', iteration: 0, started_at: stamp.at, max_rounds: 4 }, leaseHeaders(1)); // prettier-ignore
      await land(bus, round, leaseHeaders(1));

      const taken = await resume(bus, 2);
      t.ok(taken.prior?.phase('plan', 0)?.started, 'the holder reads the record that landed before it');
      t.equal(taken.prior?.unsettledSpend, 'spend-0', 'the round is unsettled: its spend is sent again');
      // The old holder's plan outcome lands after the new holder read the journal, before it wrote there.
      await land(bus, { kind: 'phase_completed', phase: 'plan', iteration: 0, outcome: { phase: 'plan', decision: 'skip', plan: '' }, tokens: 12, tools: [] }, leaseHeaders(1)); // prettier-ignore

      const later = await resume(bus, 3);
      t.equal(taken.prior?.phase('plan', 0)?.completed, null, 'the holder had no outcome');
      t.equal(later.prior?.phase('plan', 0)?.completed, null, 'a later resume ignores the late outcome');
      t.ok(later.prior?.phase('plan', 0)?.started, 'and reads the records that landed before the mark');
      t.equal(later.prior?.phase('plan', 0)?.rounds.size, 1);
      t.equal(later.prior?.unsettledSpend, 'spend-0', 'a mark after a round leaves it unsettled');
      t.equal(later.prior?.records, 3, 'marks are not records');
      const single = await openTurn({ bus, handle: 'ada', turnId: 'turn-1', node: 'node-one', fence: () => undefined, now }); // prettier-ignore
      t.equal(single.prior?.phase('plan', 0)?.completed, null, 'a reader without an epoch too');

      await resume(bus, 3); // a retried resume of the same epoch
      let marks = 0;
      for await (const msg of bus.replay(Streams.Turns, { subject: Subjects.turnJournal('ada', 'turn-1') }))
        if ((JSON.parse(new TextDecoder().decode(msg.data)) as { kind: string }).kind === 'held') marks += 1;
      t.equal(marks, 2, 'one mark per resuming epoch; none from a reader without one');
    },
  );
}

t.test('a fresh turn writes no mark: its journal does not exist', async (t) => {
  const bus = await busFor(t, 'memory');
  const opened = await resume(bus, 2);
  t.equal(opened.prior, null);
  t.equal(await bus.lastMessage(Streams.Turns, Subjects.turnJournal('ada', 'turn-1')), null);
});
