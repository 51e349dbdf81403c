/**
 * The records of a turn's journal (turn.journal.ts), as written to and read from `SVC_TURNS`: zod at the
 * bus boundary, so a record of another release that does not parse is skipped, never trusted.
 */
import { z } from 'zod';
import { Payloads, SeatNeed, SpendRecord } from '../../schema/index.js';

const Phase = z.enum(['plan', 'execute', 'review']);
const Limits = z.object({
  plan_rounds: z.number(),
  execute_rounds: z.number(),
  plan_ceiling: z.number(),
  execute_ceiling: z.number(),
  extension_enabled: z.boolean(),
  extension_step: z.number(),
  max_iterations: z.number(),
});
/** A model answer as the phase loop reads it (the parts of `LlmResult` it uses). */
export const RoundAnswer = z.object({
  text: z.string(),
  tool_calls: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      arguments: z.record(z.string(), z.unknown()),
      raw_arguments: z.string(),
      arguments_valid: z.boolean(),
    }),
  ),
  usage: z.object({
    input_tokens: z.number(),
    output_tokens: z.number(),
    cache_read_tokens: z.number(),
    cache_write_tokens: z.number(),
  }),
  model: z.string(),
  provider: z.string(),
  started_at: z.string(),
  duration_ms: z.number(),
});
export type RoundAnswer = z.infer<typeof RoundAnswer>;

const PhaseOutcome = z.discriminatedUnion('phase', [
  z.object({ phase: z.literal('plan'), decision: z.enum(['plan', 'direct', 'skip']), plan: z.string() }),
  z.object({ phase: z.literal('execute'), response: z.string(), delivered: z.boolean() }),
  z.object({ phase: z.literal('review'), verdict: z.enum(['done', 'self_iterate']), notes: z.string() }),
]);

const at = { at: z.string(), node: z.string() };
const where = { phase: Phase, iteration: z.number().int() };

export const JournalRecord = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('turn_started'),
    ...at,
    wake_id: z.string(),
    limits: Limits,
    /** The waiting wakes the turn took with its own (inbox batching, seat.coalesce.ts). */
    absorbed: z.array(z.object({ id: z.string(), seq: z.number().int() })).optional(),
  }),
  z.object({
    kind: z.literal('phase_started'),
    ...at,
    ...where,
    started_at: z.string(),
    max_rounds: z.number(),
  }),
  z.object({
    kind: z.literal('round'),
    ...at,
    ...where,
    round: z.number().int(),
    answer: RoundAnswer,
    spend: SpendRecord,
    /** The answers of this call that began and failed before it (the chain fell back from them). */
    unfinished: z.array(SpendRecord).optional(),
  }),
  /**
   * A model call of round `round` whose answer began and failed (mid-stream, or every provider that began
   * one as the chain fell back): what each cost, written before it is stored, so a run killed between the
   * failure and the store has it sent by the next (absent in journals of earlier releases).
   */
  z.object({
    kind: z.literal('unfinished'),
    ...at,
    ...where,
    round: z.number().int(),
    spend: z.array(SpendRecord).min(1),
  }),
  z.object({
    kind: z.literal('tool_started'),
    ...at,
    ...where,
    round: z.number().int(),
    index: z.number().int(),
    call_id: z.string(),
    name: z.string(),
  }),
  z.object({
    kind: z.literal('tool_result'),
    ...at,
    ...where,
    round: z.number().int(),
    index: z.number().int(),
    output: z.string(),
    is_error: z.boolean(),
    delivered: z.boolean(),
    execution: Payloads.ToolExecution,
    /** Written by releases that kept needs in memory (the seat's log holds them now); read and ignored. */
    needs: z.array(SeatNeed).optional(),
  }),
  z.object({
    kind: z.literal('phase_completed'),
    ...at,
    ...where,
    outcome: PhaseOutcome,
    tokens: z.number(),
    picked: z.array(z.string()).optional(),
    tools: z.array(z.string()),
    /** Absent in records of releases before tool skills. */
    skills: z.array(z.string()).optional(),
  }),
  z.object({
    kind: z.literal('phase_failed'),
    ...at,
    ...where,
    reason: z.enum(['provider', 'budget', 'aborted', 'error']),
    error: z.string(),
    tokens: z.number(),
  }),
  /**
   * The turn was cut, not failed: `shutdown` (the drain's grace ran out), `paused` (a stop_running pause),
   * `llm_unavailable` (it waits for its provider's retry_at). The next run resumes it from here.
   */
  z.object({ kind: z.literal('cut'), ...at, reason: z.string() }),
]);
export type JournalRecord = z.infer<typeof JournalRecord>;
export type Of<K extends JournalRecord['kind']> = Extract<JournalRecord, { kind: K }>;
/** A record as a phase writes it: the journal stamps `at` and `node`. */
export type JournalEntry = JournalRecord extends infer R
  ? R extends JournalRecord
    ? Omit<R, 'at' | 'node'>
    : never
  : never;
