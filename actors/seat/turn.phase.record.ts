/**
 * What a phase leaves behind: its `agent_phase_completed` record (done or failed), built from the phase
 * as far as it got, and for a phase that finished the result the machine folds in.
 */
import { SKILL_READ_TOOL, skillOfAnswer, type Payloads, type SpendRecord } from '../../schema/index.js';
import type { PhaseName, Turn } from './seat.machine.js';
import { workItemOf } from './seat.types.js';
import type { RoundAnswer } from './turn.journal.records.js';
import { parsePlan, parseReview } from './turn.prompts.js';
import type { PhaseResult } from './turn.phase.types.js';

export type PhaseCompleted = (typeof Payloads.AgentPhaseCompleted)['_output'];
export type ToolExecution = (typeof Payloads.ToolExecution)['_output'];
export type Round = (typeof Payloads.Round)['_output'];
export interface TimelineMark {
  readonly at: string;
  readonly kind: string;
  readonly detail?: string;
}

/** A phase as far as it got. The lists are the ones the phase appends to (the record refers to them). */
export interface PhaseSoFar {
  readonly key: { readonly turn_id: string; readonly phase: PhaseName; readonly iteration: number };
  readonly turn: Turn;
  readonly started: Date;
  readonly system: string;
  /** The model that answered last (before any answer: the chain's first entry's). */
  readonly model: string;
  /** The last answer's text. */
  readonly text: string;
  readonly delivered: boolean;
  readonly rounds: Round[];
  readonly executions: ToolExecution[];
  readonly timeline: readonly TimelineMark[];
  readonly totals: {
    readonly input: number;
    readonly output: number;
    readonly cacheRead: number;
    readonly cacheWrite: number;
  };
  readonly maxRounds: number;
  readonly ceiling: number;
}

export const tokensOf = (p: PhaseSoFar): number => p.totals.input + p.totals.output;

type Totals = { -readonly [K in keyof PhaseSoFar['totals']]: number };

/**
 * Adds to a phase's tokens what its answers that began and failed cost (their spend records, counted in
 * every spend read): no round row shows such an answer, yet the phase's and its turn's totals say what the
 * `/tokens/breakdown` turn row says.
 */
export function addSpent(totals: Totals, records: readonly SpendRecord[]): void {
  for (const r of records) {
    totals.input += r.input_tokens;
    totals.output += r.output_tokens;
    totals.cacheRead += r.cache_read_tokens;
    totals.cacheWrite += r.cache_write_tokens;
  }
}

/** A model answer as its `rounds[]` row. */
export const roundRow = (round: number, answer: RoundAnswer): Round => ({
  round,
  started_at: answer.started_at,
  duration_ms: answer.duration_ms,
  model: answer.model,
  input_tokens: answer.usage.input_tokens,
  output_tokens: answer.usage.output_tokens,
  cache_read_tokens: answer.usage.cache_read_tokens,
  cache_write_tokens: answer.usage.cache_write_tokens,
  tool_calls: answer.tool_calls.map((c) => c.name),
});

/** The phase's `agent_phase_completed` payload as of `end`; `error` is the failure's message. */
export function phaseRecord(p: PhaseSoFar, end: Date, failed: boolean, error: string | null): PhaseCompleted {
  return {
    ...p.key,
    model: p.model,
    response: p.text,
    tool_executions: p.executions,
    total_tokens: tokensOf(p),
    timestamp: end.toISOString(),
    failed,
    duration_ms: Math.max(0, end.getTime() - p.started.getTime()),
    started_at: p.started.toISOString(),
    rounds: p.rounds,
    cache_read_tokens: p.totals.cacheRead,
    cache_write_tokens: p.totals.cacheWrite,
    max_rounds: p.maxRounds,
    round_ceiling: p.ceiling,
    work_item: workItemOf(p.turn.wake),
    system_prompt: p.system,
    input_tokens: p.totals.input,
    output_tokens: p.totals.output,
    timeline: [
      ...p.timeline,
      {
        at: end.toISOString(),
        kind: failed ? 'failed' : 'completed',
        ...(error ? { detail: error } : {}),
      },
    ],
    error,
  };
}

/** What a finished phase returns: its outcome read from the last answer, and what it used. */
export function phaseResult(p: PhaseSoFar): PhaseResult {
  return outcomeOf(
    p.key.phase,
    p.text,
    p.delivered,
    tokensOf(p),
    p.executions.map((e) => e.name),
    skillsRead(p.executions),
  );
}

function outcomeOf(
  phase: PhaseName,
  text: string,
  delivered: boolean,
  tokens: number,
  called: string[],
  skills: string[],
): PhaseResult {
  if (phase === 'plan') {
    const plan = parsePlan(text);
    return {
      outcome: { phase, decision: plan.decision, plan: plan.plan },
      tokens,
      picked: plan.tools,
      tools: called,
      skills,
    };
  }
  if (phase === 'execute')
    return { outcome: { phase, response: text, delivered }, tokens, tools: called, skills };
  return { outcome: { phase, ...parseReview(text) }, tokens, tools: called, skills };
}

/** The skills `skill_read` answered in a phase, by their exact names (a refused read names none). */
function skillsRead(executions: readonly ToolExecution[]): string[] {
  return executions.flatMap((e) => {
    if (e.name !== SKILL_READ_TOOL || e.error) return [];
    const name = skillOfAnswer(e.result ?? '');
    return name === null ? [] : [name];
  });
}
