import t from 'tap';
import { foldJournal } from '../../../actors/seat/turn.journal.js';
import type { JournalRecord } from '../../../actors/seat/turn.journal.records.js';

const at = { at: '2026-12-04T10:00:00.000Z', node: 'node-0' };
const where = { phase: 'execute', iteration: 0 } as const;

function round(n: number): Extract<JournalRecord, { kind: 'round' }> {
  return {
    kind: 'round',
    ...at,
    ...where,
    round: n,
    answer: {
      text: '',
      tool_calls: [],
      usage: { input_tokens: 10, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0 },
      model: 'm',
      provider: 'main',
      started_at: at.at,
      duration_ms: 5,
    },
    spend: {
      id: `spend-${n}`,
      timestamp: at.at,
      node: 'node-0',
      handle: 'ada',
      agent_id: 'agent-ada',
      role: 'Ada',
      turn_id: 'turn-1',
      phase: 'execute',
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
}

function toolResult(n: number): JournalRecord {
  const execution = {
    name: 'read_file',
    call_id: 'c',
    started_at: at.at,
    duration_ms: 1,
    origin: 'builtin',
    server: null,
  };
  return {
    kind: 'tool_result',
    ...at,
    ...where,
    round: n,
    index: 0,
    output: 'ok',
    is_error: false,
    delivered: false,
    execution,
  };
}

const started: JournalRecord = {
  kind: 'tool_started',
  ...at,
  ...where,
  round: 1,
  index: 0,
  call_id: 'c',
  name: 'x',
};

t.test('a journal ending with a round leaves that round spend unsettled', async (t) => {
  t.equal(foldJournal([round(0), toolResult(0), round(1)]).unsettledSpend, 'spend-1');
});

t.test('a record written after a round spend settles it', async (t) => {
  t.equal(foldJournal([round(0), toolResult(0)]).unsettledSpend, null, 'its own tool result');
  t.equal(
    foldJournal([round(0), toolResult(0), round(1), started]).unsettledSpend,
    null,
    'a later tool start',
  );
  t.equal(foldJournal([]).unsettledSpend, null, 'an empty journal');
});

t.test('an earlier round tool result landing after the next round leaves that round unsettled', async (t) => {
  // A retriable tool's result write is retried while the next round is recorded and lands after it.
  t.equal(foldJournal([round(0), round(1), toolResult(0)]).unsettledSpend, 'spend-1');
  t.equal(foldJournal([round(0), round(1), toolResult(0), toolResult(1)]).unsettledSpend, null);
});

/** The record of an answer of round `n` that failed after it began: what it cost, journaled before it is stored. */
function unfinished(n: number): Extract<JournalRecord, { kind: 'unfinished' }> {
  const { spend } = round(n);
  return {
    kind: 'unfinished',
    ...at,
    ...where,
    round: n,
    spend: [{ ...spend, id: `cut-${n}`, estimated: true }],
  };
}

const phaseFailed: JournalRecord = {
  kind: 'phase_failed',
  ...at,
  ...where,
  reason: 'provider',
  error: 'cut mid-answer',
  tokens: 12,
};

t.test('a journal ending with an answer that failed after it began leaves its spend unsettled', async (t) => {
  const journal = foldJournal([round(0), toolResult(0), unfinished(1)]);
  t.same(
    journal.unsettledUnfinished?.spend.map((s) => [s.id, s.estimated]),
    [['cut-1', true]],
    'its spend is sent again on resume',
  );
  t.equal(journal.unsettledSpend, null, 'the round before it is settled: its spend was stored first');
  t.equal(foldJournal([round(0), toolResult(0)]).unsettledUnfinished, null, 'none on record');
});

t.test('a record written after a failed answer settles its spend', async (t) => {
  t.equal(foldJournal([unfinished(0), phaseFailed]).unsettledUnfinished, null, 'the phase failed on record');
  t.equal(foldJournal([unfinished(0), round(0)]).unsettledUnfinished, null, 'the round asked again');
  t.equal(foldJournal([unfinished(0), round(0)]).unsettledSpend, 'spend-0', 'whose own spend is newest');
  // A retriable tool's result write of the round before may land after the failed answer.
  t.same(
    foldJournal([round(0), unfinished(1), toolResult(0)]).unsettledUnfinished?.spend.map((s) => s.id),
    ['cut-1'],
    'an earlier round tool result does not settle it',
  );
});

t.test(
  "a phase's unsettled spend is that of the journal's unsettled round or failed answer when it is the phase's",
  async (t) => {
    const ids = (records: JournalRecord[], phase: 'plan' | 'execute', iteration = 0): string[] =>
      foldJournal(records)
        .unsettled(phase, iteration)
        .map((s) => s.id);
    t.same(ids([round(0), toolResult(0), round(1)], 'execute'), ['spend-1'], 'the round');
    t.same(
      ids([{ ...round(0), unfinished: [{ ...round(0).spend, id: 'fell-0' }] }], 'execute'),
      ['spend-0', 'fell-0'],
      'the round and the answers it fell back from',
    );
    t.same(ids([round(0), toolResult(0), unfinished(1)], 'execute'), ['cut-1'], 'the failed answer');
    t.same(ids([round(1)], 'plan'), [], "another phase's");
    t.same(ids([round(1)], 'execute', 1), [], "another iteration's");
    t.same(ids([round(0), toolResult(0)], 'execute'), [], 'settled');
    t.same(ids([unfinished(0), phaseFailed], 'execute'), [], 'settled by the phase failing');
  },
);

t.test(
  'the open phases are those started and neither completed nor failed, in the order they started',
  async (t) => {
    const phaseStarted = (phase: 'plan' | 'execute' | 'review', iteration: number): JournalRecord => ({
      kind: 'phase_started',
      ...at,
      phase,
      iteration,
      started_at: at.at,
      max_rounds: 4,
    });
    const plan: JournalRecord = {
      kind: 'phase_completed',
      ...at,
      phase: 'plan',
      iteration: 0,
      outcome: { phase: 'plan', decision: 'plan', plan: 'p' },
      tokens: 12,
      tools: [],
    };
    const failed: JournalRecord = {
      kind: 'phase_failed',
      ...at,
      phase: 'review',
      iteration: 0,
      reason: 'aborted',
      error: 'e',
      tokens: 0,
    };
    const journal = foldJournal([
      phaseStarted('plan', 0),
      plan,
      phaseStarted('execute', 0),
      round(0),
      toolResult(0),
    ]);
    t.same(
      journal.open().map((p) => [p.phase, p.iteration, [...p.record.rounds.keys()]]),
      [['execute', 0, [0]]],
      'the cut execute, with what it recorded',
    );
    t.same(foldJournal([phaseStarted('review', 0), failed]).open(), [], 'a failed phase is ended');
    t.same(foldJournal([round(0)]).open(), [], 'a phase whose start is not on record is not one to close');
  },
);

t.test('a cut written after a round or a failed answer does not settle its spend', async (t) => {
  // The seat host writes the cut beside the running phase, not after the phase stored its spend: a kill
  // between the cut and that store would lose the spend if the cut counted as what followed it.
  const cut: JournalRecord = { kind: 'cut', ...at, reason: 'shutdown' };
  t.equal(foldJournal([round(0), toolResult(0), round(1), cut]).unsettledSpend, 'spend-1');
  t.same(
    foldJournal([round(0), toolResult(0), round(1), cut])
      .unsettled('execute', 0)
      .map((s) => s.id),
    ['spend-1'],
  );
  t.equal(foldJournal([round(0), toolResult(0), unfinished(1), cut]).unsettledUnfinished?.round, 1);
  t.equal(
    foldJournal([round(0), cut, toolResult(0)]).unsettledSpend,
    null,
    'what the phase wrote settles it',
  );
});
