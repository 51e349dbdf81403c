import t from 'tap';
import { foldJournal, type JournalRecord } from '../../../actors/seat/turn.journal.js';

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
