/**
 * A turn taken again past its deadline closes the phase a crash left open without running it
 * (turn.close.ts): the spend the journal holds and may not have stored — the newest record a `round` or an
 * `unfinished` one, nothing after it — is stored by that close, under its own ids, so it is counted once
 * whether or not the crashed run stored it (ops/turn-engine.md "Resuming a cut turn").
 *
 * The crash cannot be timed between two bus writes from outside: the journal is written as the crashed run
 * wrote it, then the wake is delivered to a seat whose clock is past the deadline.
 */
import t, { type Test } from 'tap';
import { defaultLimits } from '../../../actors/seat/seat.limits.js';
import { journalWriter } from '../../../actors/seat/turn.journal.js';
import type { JournalEntry } from '../../../actors/seat/turn.journal.records.js';
import { Subjects } from '../../../bus/index.js';
import { emptyLedger, applySpend } from '../../../projections/index.js';
import { tokenBreakdown, rollupParams } from '../../../projections/tokens/tokens.rollup.js';
import { agentId, Payloads, uuidv5, type SpendRecord } from '../../../schema/index.js';
import { startCompany, type Harness } from './harness.js';
import { recordedDone, scheduledWake } from './wakes.js';

const firedAt = new Date();
const at = firedAt.toISOString();

function spendOf(turnId: string, id: string, tokens: [number, number], estimated = false): SpendRecord {
  return {
    id,
    timestamp: at,
    node: 'node-0',
    handle: 'ada',
    agent_id: agentId('Acme', 'ada'),
    role: 'Ada',
    turn_id: turnId,
    phase: 'plan',
    worker: null,
    provider: 'local',
    model: 'local-1',
    input_tokens: tokens[0],
    output_tokens: tokens[1],
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    total_tokens: tokens[0] + tokens[1],
    ...(estimated ? { estimated: true as const } : {}),
  };
}

/** What the crashed run left: the turn started, its plan phase started, then `last`, the newest record. */
async function crashedAfter(
  h: Harness,
  wakeId: string,
  turnId: string,
  last: JournalEntry,
  stored: readonly SpendRecord[],
): Promise<void> {
  const writer = journalWriter({
    bus: h.bus,
    handle: 'ada',
    turnId,
    node: 'node-0',
    fence: () => undefined,
    now: () => firedAt,
  });
  await writer.write({ kind: 'turn_started', wake_id: wakeId, limits: defaultLimits });
  await writer.write({
    kind: 'phase_started',
    phase: 'plan',
    iteration: 0,
    started_at: at,
    max_rounds: defaultLimits.plan_rounds,
  });
  await writer.write(last);
  // The kill came after these were stored.
  for (const record of stored)
    await h.bus.publish(Subjects.spend('llm'), new TextEncoder().encode(JSON.stringify(record)), {
      msgId: record.id,
    });
}

const planAnswer = {
  text: '{"decision":"plan","steps":["echo hi"],"success_criteria":["hi was echoed"],"tools":["files_echo"]}',
  tool_calls: [],
  usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 0, cache_write_tokens: 0 },
  model: 'local-1',
  provider: 'local',
  started_at: at,
  duration_ms: 5,
};

interface Case {
  readonly name: string;
  /** The newest record, and the spend records it carries. */
  readonly last: (turnId: string) => { entry: JournalEntry; spend: SpendRecord[] };
}

const cases: Case[] = [
  {
    name: 'a round',
    last: (turnId) => {
      const spend = spendOf(turnId, 'plan-round-spend', [100, 20]);
      return {
        entry: { kind: 'round', phase: 'plan', iteration: 0, round: -1, answer: planAnswer, spend },
        spend: [spend],
      };
    },
  },
  {
    name: 'a round with an answer the chain fell back from',
    last: (turnId) => {
      const spend = spendOf(turnId, 'plan-round-spend', [100, 20]);
      const fell = spendOf(turnId, 'fallen-back-spend', [70, 6], true);
      return {
        entry: {
          kind: 'round',
          phase: 'plan',
          iteration: 0,
          round: -1,
          answer: planAnswer,
          spend,
          unfinished: [fell],
        },
        spend: [spend, fell],
      };
    },
  },
  {
    name: 'an answer that failed mid-stream (unfinished)',
    last: (turnId) => {
      const cut = spendOf(turnId, 'cut-answer-spend', [70, 6], true);
      return {
        entry: { kind: 'unfinished', phase: 'plan', iteration: 0, round: -1, spend: [cut] },
        spend: [cut],
      };
    },
  },
];

async function takenPastDeadline(t: Test, c: Case, stored: boolean): Promise<void> {
  // The seats' clock is two minutes on: the one-minute deadline passed while the node was down.
  const h = await startCompany(t, { script: [], now: () => new Date(Date.now() + 120_000) });
  const wakeId = 'wake-closed-spend';
  const turnId = uuidv5(agentId('Acme', 'ada'), wakeId);
  const { entry, spend } = c.last(turnId);
  await crashedAfter(h, wakeId, turnId, entry, stored ? spend : []);
  const done = recordedDone(h, 'ada', turnId);
  await scheduledWake(h, 'ada', { firedAt, timeoutSeconds: 60, id: wakeId });
  await done;

  const turn = Payloads.AgentTurnCompleted.parse(
    (await h.events('agent_turn_completed')).find((e) => e.payload['turn_id'] === turnId)?.payload,
  );
  t.match(turn, { failed: true, phases: ['plan'], error: /passed while the turn was cut/ });
  t.equal(h.llm.requests.length, 0, 'no model call: the phase is closed, not run');
  const all = await h.spend();
  for (const record of spend)
    t.equal(all.filter((r) => r.id === record.id).length, 1, `${record.id} stored once, under its id`);
  const ledger = emptyLedger();
  for (const record of all) applySpend(ledger, record);
  const row = tokenBreakdown(ledger, rollupParams(new URLSearchParams())).by_turn.find(
    (r) => r.turn_id === turnId,
  );
  t.equal(
    row?.total_tokens,
    spend.reduce((n, r) => n + r.total_tokens, 0),
    '/tokens/breakdown counts the turn its spend once',
  );
}

for (const c of cases) {
  t.test(
    `a turn taken again past its deadline stores the spend of ${c.name} its closed phase left unsettled`,
    (t) => takenPastDeadline(t, c, false),
  );
  t.test(
    `a turn taken again past its deadline does not count twice the spend of ${c.name} the crashed run stored`,
    (t) => takenPastDeadline(t, c, true),
  );
}
