/**
 * A seat removed from the company keeps its spend counted: a turn of it that a crash cut between journaling a
 * model call's spend and storing it is never taken up again (its wake stays in the removed seat's inbox), so
 * the apply that removes the seat stores the spend its journals hold and may not have stored, under their
 * own ids, counted once whether or not the crashed run stored it (ops/turn-engine.md "Seats and applies").
 * The journal itself is kept (7 days), so a seat added back under its handle still resumes the turn.
 *
 * The crash cannot be timed between two bus writes from outside: the journal is written as the crashed run
 * wrote it.
 */
import t, { type Test } from 'tap';
import { defaultLimits } from '../../../actors/seat/seat.limits.js';
import { journalWriter, readJournal } from '../../../actors/seat/turn.journal.js';
import type { JournalEntry } from '../../../actors/seat/turn.journal.records.js';
import { Subjects } from '../../../bus/index.js';
import { applySpend, emptyLedger } from '../../../projections/index.js';
import { rollupParams, tokenBreakdown } from '../../../projections/tokens/tokens.rollup.js';
import { agentId, uuidv5, type SpendRecord } from '../../../schema/index.js';
import { company, startCompany, type Harness } from './harness.js';

const at = new Date().toISOString();

function spendOf(turnId: string, id: string, tokens: [number, number]): SpendRecord {
  return {
    id,
    timestamp: at,
    node: 'node-0',
    handle: 'cy',
    agent_id: agentId('Acme', 'cy'),
    role: 'Cy',
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
  };
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

/** What a run killed after journaling `last` (and storing `stored`) left of Cy's turn. */
async function crashedAfter(
  h: Harness,
  turnId: string,
  last: JournalEntry,
  stored: readonly SpendRecord[],
): Promise<void> {
  const writer = journalWriter({
    bus: h.bus,
    handle: 'cy',
    turnId,
    node: 'node-0',
    fence: () => undefined,
    now: () => new Date(at),
  });
  await writer.write({ kind: 'turn_started', wake_id: 'wake-removed', limits: defaultLimits });
  await writer.write({
    kind: 'phase_started',
    phase: 'plan',
    iteration: 0,
    started_at: at,
    max_rounds: defaultLimits.plan_rounds,
  });
  await writer.write(last);
  for (const record of stored)
    await h.bus.publish(Subjects.spend('llm'), new TextEncoder().encode(JSON.stringify(record)), {
      msgId: record.id,
    });
}

/** The company without Cy. */
function withoutCy(h: Harness): unknown {
  const doc = company(h.llm.baseUrl);
  return { ...doc, roles: (doc.roles ?? []).filter((r) => r.name !== 'Cy') };
}

const cases = [
  {
    name: 'a round',
    last: (turnId: string) => {
      const spend = spendOf(turnId, 'cy-round-spend', [100, 20]);
      const entry: JournalEntry = {
        kind: 'round',
        phase: 'plan',
        iteration: 0,
        round: -1,
        answer: planAnswer,
        spend,
      };
      return { entry, spend: [spend] };
    },
  },
  {
    name: 'an answer that failed mid-stream (unfinished)',
    last: (turnId: string) => {
      const cut = spendOf(turnId, 'cy-cut-answer-spend', [70, 6]);
      const entry: JournalEntry = {
        kind: 'unfinished',
        phase: 'plan',
        iteration: 0,
        round: -1,
        spend: [cut],
      };
      return { entry, spend: [cut] };
    },
  },
];

async function removedAfterCrash(t: Test, c: (typeof cases)[number], stored: boolean): Promise<void> {
  const h = await startCompany(t, { script: [] });
  const turnId = uuidv5(agentId('Acme', 'cy'), 'wake-removed');
  const { entry, spend } = c.last(turnId);
  await crashedAfter(h, turnId, entry, stored ? spend : []);

  await h.apply(withoutCy(h));

  const all = await h.spend();
  for (const record of spend)
    t.equal(all.filter((r) => r.id === record.id).length, 1, `${record.id} stored once, under its id`);
  const ledger = emptyLedger();
  for (const record of all) applySpend(ledger, record);
  const breakdown = tokenBreakdown(ledger, rollupParams(new URLSearchParams()));
  const tokens = spend.reduce((n, r) => n + r.total_tokens, 0);
  t.equal(
    breakdown.by_agent.find((r) => r.handle === 'cy')?.total_tokens,
    tokens,
    '/tokens/breakdown counts the removed seat its spend once',
  );
  t.equal(breakdown.by_turn.find((r) => r.turn_id === turnId)?.total_tokens, tokens);
  t.ok(await readJournal(h.bus, 'cy', turnId), 'the journal is kept for a seat added back');
  t.equal(h.llm.requests.length, 0, 'no model call: the removed seat runs nothing');
}

for (const c of cases) {
  t.test(`removing a seat stores the spend of ${c.name} a crashed turn of it left unsettled`, (t) =>
    removedAfterCrash(t, c, false),
  );
  t.test(`removing a seat does not count twice the spend of ${c.name} the crashed run stored`, (t) =>
    removedAfterCrash(t, c, true),
  );
}
