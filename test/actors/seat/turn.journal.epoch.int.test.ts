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
import { journalWriter } from '../../../actors/seat/turn.journal.js';
import type { JournalEntry } from '../../../actors/seat/turn.journal.records.js';
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

/** The journal's records (marks included) in stream order: kind and the node that wrote each. */
async function stored(bus: Bus): Promise<Array<{ kind: string; node: string }>> {
  const kept: Array<{ kind: string; node: string }> = [];
  for await (const msg of bus.replay(Streams.Turns, { subject: Subjects.turnJournal('ada', 'turn-1') }))
    kept.push(JSON.parse(new TextDecoder().decode(msg.data)) as { kind: string; node: string });
  return kept;
}

for (const engine of engines) {
  t.test(
    `${engine}: a fresh turn is marked before it is read; a journal of marks alone reads as fresh`,
    async (t) => {
      const bus = await busFor(t, engine);
      t.equal((await resume(bus, 2)).prior, null, 'a fresh turn has nothing to resume');
      t.same(await stored(bus), [{ kind: 'held', at: stamp.at, node: 'node-2' }], 'its mark is stored');
      t.equal((await resume(bus, 2)).prior, null, 'a retried open of the epoch: still fresh, one mark');
      t.equal((await resume(bus, 3)).prior, null, "a later holder's too");
      t.equal((await stored(bus)).length, 2);
    },
  );

  t.test(
    `${engine}: a superseded holder's start of the same turn landing after a fresh turn's mark is ignored, and the new holder's start is read`,
    async (t) => {
      const bus = await busFor(t, engine);
      // The new holder (epoch 2) takes the wake the old one (epoch 1) started: it finds no journal.
      const fresh = await resume(bus, 2);
      t.equal(fresh.prior, null);
      // The old holder's start, handed to the socket before its pause, lands now, under the same id.
      await holder(bus, 1, 'node-old').write({ kind: 'turn_started', wake_id: 'w1', limits: { ...limits, plan_rounds: 1 }, absorbed: [{ id: 'w0', seq: 3 }] }); // prettier-ignore
      await fresh.writer.write({ kind: 'turn_started', wake_id: 'w1', limits });
      await fresh.writer.write({ kind: 'phase_started', phase: 'plan', iteration: 0, started_at: stamp.at, max_rounds: 4 }); // prettier-ignore

      const later = (await resume(bus, 3)).prior;
      t.equal(later?.started?.node, 'node-2', "a later resume stands on the new holder's start");
      t.same(later?.started?.limits, limits, 'with its limits');
      t.equal(later?.started?.absorbed, undefined, 'and its batch, not the late one');
      t.equal(later?.records, 2, 'the late start is not read');
    },
  );

  t.test(
    `${engine}: a step whose id a superseded holder's late record took after the resuming holder's mark is written again, and read`,
    async (t) => {
      const bus = await busFor(t, engine);
      await holder(bus, 1, 'node-old').write({ kind: 'turn_started', wake_id: 'w1', limits });
      await holder(bus, 1, 'node-old').write({ kind: 'phase_started', phase: 'plan', iteration: 0, started_at: stamp.at, max_rounds: 4 }); // prettier-ignore
      const taken = await resume(bus, 2);
      // The old holder's plan outcome lands after the new holder's mark, under the id of the new holder's own.
      await holder(bus, 1, 'node-old').write({ kind: 'phase_completed', phase: 'plan', iteration: 0, outcome: { phase: 'plan', decision: 'skip', plan: '' }, tokens: 10, tools: [] }); // prettier-ignore
      const outcome: JournalEntry = { kind: 'phase_completed', phase: 'plan', iteration: 0, outcome: { phase: 'plan', decision: 'direct', plan: '' }, tokens: 20, tools: [] }; // prettier-ignore
      await taken.writer.write(outcome);

      const later = (await resume(bus, 3)).prior?.phase('plan', 0)?.completed;
      t.equal(later?.node, 'node-2', "a later resume reads the new holder's outcome");
      t.equal(later?.tokens, 20);
      await taken.writer.write(outcome);
      t.equal(
        (await stored(bus)).filter((r) => r.kind === 'phase_completed').length,
        2,
        'the late one and the one written again; a repeat of it is stored once',
      );
    },
  );

  t.test(
    `${engine}: a step whose id a late record took after an earlier holder's mark, before the resuming holder's, is written again, and read`,
    async (t) => {
      const bus = await busFor(t, engine);
      await holder(bus, 1, 'node-old').write({ kind: 'turn_started', wake_id: 'w1', limits });
      await holder(bus, 1, 'node-old').write({ kind: 'phase_started', phase: 'plan', iteration: 0, started_at: stamp.at, max_rounds: 4 }); // prettier-ignore
      // Epoch 2 resumes and marks, then loses the seat before it writes the plan's outcome.
      await resume(bus, 2);
      // The first holder's outcome lands after that mark: every reader ignores it.
      await holder(bus, 1, 'node-old').write({ kind: 'phase_completed', phase: 'plan', iteration: 0, outcome: { phase: 'plan', decision: 'skip', plan: '' }, tokens: 10, tools: [] }); // prettier-ignore
      const taken = await resume(bus, 3);
      t.equal(taken.prior?.phase('plan', 0)?.completed, null, 'the holder of epoch 3 has no outcome');
      await taken.writer.write({ kind: 'phase_completed', phase: 'plan', iteration: 0, outcome: { phase: 'plan', decision: 'direct', plan: '' }, tokens: 20, tools: [] }); // prettier-ignore

      const later = (await resume(bus, 4)).prior?.phase('plan', 0)?.completed;
      t.equal(later?.node, 'node-3', "a later resume reads the outcome of epoch 3's holder");
      t.equal(later?.tokens, 20);
    },
  );

  t.test(
    `${engine}: a step the resuming holder does again over a record every reader keeps is stored once, and a journal without epochs is read`,
    async (t) => {
      const bus = await busFor(t, engine);
      // An earlier release's records: no epoch header.
      await land(bus, { kind: 'turn_started', wake_id: 'w1', limits });
      await land(bus, { kind: 'phase_started', phase: 'plan', iteration: 0, started_at: stamp.at, max_rounds: 4 }); // prettier-ignore
      // The old holder's result of a retriable tool, written behind its round, lands before the next mark.
      const result: JournalEntry = { kind: 'tool_result', phase: 'plan', iteration: 0, round: 0, index: 0, output: 'ok', is_error: false, delivered: true, execution: { name: 'memory_recall', call_id: 'c0', result: 'ok', error: null, started_at: stamp.at, duration_ms: 1, origin: 'builtin', server: null } }; // prettier-ignore
      await holder(bus, 1, 'node-old').write(result);
      const taken = await resume(bus, 2);
      t.equal(taken.prior?.started?.wake_id, 'w1', 'the records without an epoch are read');
      t.ok(taken.prior?.phase('plan', 0)?.calls.get('0.0')?.result, 'and the result before the mark');
      await taken.writer.write(result);
      t.equal((await stored(bus)).filter((r) => r.kind === 'tool_result').length, 1, 'stored once');
    },
  );
}
