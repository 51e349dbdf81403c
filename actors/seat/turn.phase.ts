/**
 * Runs one phase of a turn (the host's `runPhase` effect): the tool loop on the seat's provider chain.
 *   1. before each model call: stop if aborted, check the budget
 *   2. call the model (progress streamed on `agent_turn_progress`), record a spend record
 *   3. run the tools it asked for through the router (a call in flight is abandoned, and an MCP server
 *      told, when the turn is cut); loop until it answers without tools or the
 *      round limit (extended by `extension_round_step` when enabled, up to the ceiling) is reached
 * and returns the phase record (`agent_phase_completed`) with the outcome the machine folds in.
 */
import { randomUUID } from 'node:crypto';
import type { Payloads, SpendRecord, ToolEntry } from '../../schema/index.js';
import { LlmAbortedError, LlmUnavailableError, type LlmMessage, type LlmResult } from './providers/index.js';
import type { FailReason, PhaseName, PhaseOutcome, Turn } from './seat.machine.js';
import { extendRounds, phaseRounds } from './seat.limits.js';
import { parsePlan, parseReview, phaseMessage, systemPrompt } from './turn.prompts.js';
import type { TurnDeps } from './turn.deps.js';
import { runToolCall, stopped, type ToolCallContext } from './turn.tools.js';
import type { SeatProfile, Charter } from './seat.profile.js';

type PhaseCompleted = (typeof Payloads.AgentPhaseCompleted)['_output'];
type ToolExecution = (typeof Payloads.ToolExecution)['_output'];
type Round = (typeof Payloads.Round)['_output'];

/** A phase that ended without its outcome; `reason` says how the turn ends. */
export class PhaseFailure extends Error {
  override name = 'PhaseFailure';
  constructor(
    readonly reason: FailReason,
    message: string,
    readonly tokens: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface PhaseInput {
  readonly turn: Turn;
  readonly phase: PhaseName;
  readonly seat: SeatProfile;
  readonly charter: Charter;
  readonly caps: { readonly org: number; readonly seat: number };
  readonly signal: AbortSignal;
}

export interface PhaseResult {
  readonly outcome: PhaseOutcome;
  readonly tokens: number;
  /** Plan only: the tools it picked for execute. */
  readonly picked?: readonly string[];
  /** The tools the phase called, in order (the turn's episode lists them). */
  readonly tools: readonly string[];
}

/** The tools a phase offers: none in review; the plan's picks in execute when it named known ones. */
function toolsOf(all: ToolEntry[], phase: PhaseName, picked: readonly string[]): ToolEntry[] {
  if (phase === 'review') return [];
  if (phase === 'execute' && picked.length > 0) {
    const chosen = all.filter((t) => picked.includes(t.name));
    if (chosen.length > 0) return chosen;
  }
  return all;
}

export async function runPhase(
  deps: TurnDeps,
  input: PhaseInput,
  picked: readonly string[],
): Promise<PhaseResult> {
  const { turn, phase, seat } = input;
  const started = deps.now();
  const system = systemPrompt(input.charter, seat, phase);
  const tools = toolsOf(deps.tools.toolsFor(seat.handle), phase, picked);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const messages: LlmMessage[] = [{ role: 'user', content: phaseMessage(turn, phase) }];
  const chain = deps.llm.resolve(seat.llm ? { llm: seat.llm } : seat.handle);
  const opening = phaseRounds(turn.limits, phase);
  const ceiling = opening.ceiling;
  let maxRounds = opening.max_rounds;
  const rounds: Round[] = [];
  const executions: ToolExecution[] = [];
  const timeline: Array<{ at: string; kind: string; detail?: string }> = [
    { at: started.toISOString(), kind: 'started' },
  ];
  const totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  // The model of the chain's first entry until one answers (then the model that answered).
  let model = (chain[0] !== undefined ? deps.llm.snapshot?.()[chain[0]]?.model : undefined) ?? '';
  let text = '';
  let delivered = false;
  const key = { turn_id: turn.turn_id, phase, iteration: turn.iteration };
  const tokens = (): number => totals.input + totals.output;
  const toolCtx: ToolCallContext = {
    seat: seat.handle,
    agent_id: seat.agent_id,
    turn_id: turn.turn_id,
    trace_id: turn.wake.trace_id,
    signal: input.signal,
  };

  await deps.events.publish('agent_phase_started', {
    ...key,
    model,
    started_at: started.toISOString(),
    max_rounds: maxRounds,
    round_ceiling: ceiling,
    ...(phase === 'plan' && turn.iteration === 0 ? { trigger: turn.wake.kind } : {}),
  });

  const record = (failed: boolean, error: string | null): PhaseCompleted => {
    const end = deps.now();
    return {
      ...key,
      model,
      response: text,
      tool_executions: executions,
      total_tokens: tokens(),
      timestamp: end.toISOString(),
      failed,
      duration_ms: Math.max(0, end.getTime() - started.getTime()),
      started_at: started.toISOString(),
      rounds,
      cache_read_tokens: totals.cacheRead,
      cache_write_tokens: totals.cacheWrite,
      max_rounds: maxRounds,
      round_ceiling: ceiling,
      system_prompt: system,
      input_tokens: totals.input,
      output_tokens: totals.output,
      timeline: [
        ...timeline,
        { at: end.toISOString(), kind: failed ? 'failed' : 'completed', ...(error ? { detail: error } : {}) },
      ],
      error,
    };
  };
  const fail = async (reason: FailReason, message: string, cause?: unknown): Promise<never> => {
    await deps.events.publish('agent_phase_completed', record(true, message), true);
    throw new PhaseFailure(reason, message, tokens(), { cause });
  };

  let toolRounds = 0;
  for (let round = -1; ; round += 1) {
    // 1. abort and budget, before every model call
    if (input.signal.aborted) return fail('aborted', stopped(input.signal));
    const refusal = await deps.budget.check(seat.handle, input.caps);
    if (refusal) {
      await deps.events.publish('budget_exhausted', { ...refusal, turn_id: turn.turn_id }, true);
      return fail('budget', `${refusal.scope} token budget exhausted (${refusal.used}/${refusal.cap})`);
    }
    // 2. the model call
    const roundStart = deps.now();
    deps.events.progress({
      ...key,
      model,
      round_num: round,
      max_rounds: maxRounds,
      response: text,
      tool_calls: executions,
      round_started_at: roundStart.toISOString(),
    });
    let result: LlmResult;
    try {
      result = await deps.llm
        .call(
          chain,
          { system, messages, ...(tools.length ? { tools } : {}), signal: input.signal },
          { seat: seat.handle, trace: { trace_id: turn.wake.trace_id, parent_span_id: null } },
        )
        .result();
    } catch (error) {
      if (error instanceof LlmAbortedError || input.signal.aborted)
        return fail('aborted', stopped(input.signal), error);
      if (error instanceof LlmUnavailableError) {
        const last = error.attempts.at(-1);
        await deps.events.publish(
          'llm_unavailable',
          {
            provider: last?.provider ?? chain[0] ?? '',
            reason: last?.reason ?? 'not_configured',
            turn_id: turn.turn_id,
            phase,
            retry_at: error.retryAt,
            chain: [...chain],
            attempts: error.attempts,
          },
          true,
        );
        return fail('provider', error.message, error);
      }
      return fail('error', error instanceof Error ? error.message : String(error), error);
    }
    model = result.model;
    const u = result.usage;
    totals.input += u.input_tokens;
    totals.output += u.output_tokens;
    totals.cacheRead += u.cache_read_tokens;
    totals.cacheWrite += u.cache_write_tokens;
    const spend: SpendRecord = {
      id: randomUUID(),
      timestamp: deps.now().toISOString(),
      node: deps.node,
      handle: seat.handle,
      agent_id: seat.agent_id,
      role: seat.name,
      turn_id: turn.turn_id,
      phase,
      worker: null,
      provider: result.provider,
      model: result.model,
      input_tokens: u.input_tokens,
      output_tokens: u.output_tokens,
      cache_read_tokens: u.cache_read_tokens,
      cache_write_tokens: u.cache_write_tokens,
      total_tokens: u.input_tokens + u.output_tokens,
    };
    // Together, so the spend record and both budget counters share the bus's group commits.
    await Promise.all([deps.spend(spend), deps.budget.add(seat.handle, spend.total_tokens)]);
    rounds.push({
      round,
      started_at: roundStart.toISOString(),
      duration_ms: result.duration_ms,
      model: result.model,
      input_tokens: u.input_tokens,
      output_tokens: u.output_tokens,
      cache_read_tokens: u.cache_read_tokens,
      cache_write_tokens: u.cache_write_tokens,
      tool_calls: result.tool_calls.map((c) => c.name),
    });
    text = result.text;
    if (result.tool_calls.length === 0) break;

    // 3. tools
    messages.push({
      role: 'assistant',
      content: result.text,
      tool_calls: result.tool_calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
    });
    for (const call of result.tool_calls) {
      if (input.signal.aborted) return fail('aborted', stopped(input.signal));
      const run = await runToolCall(deps, toolCtx, call, byName.get(call.name));
      executions.push(run.execution);
      timeline.push({ at: run.execution.started_at, kind: 'tool', detail: call.name });
      // Cut mid-call: the row says the call was cancelled; nothing the tool yields is recorded.
      if (run.cancelled) return fail('aborted', stopped(input.signal));
      if (run.delivered) delivered = true;
      messages.push({ role: 'tool', tool_call_id: call.id, content: run.output, is_error: run.isError });
    }
    toolRounds += 1;
    if (toolRounds >= maxRounds) {
      const extended = extendRounds(turn.limits, maxRounds, ceiling);
      if (extended === null) {
        await deps.events.publish(
          'turn.guard_breach',
          {
            turn_id: turn.turn_id,
            phase,
            kind: 'max_rounds',
            detail: `${phase} reached ${maxRounds} tool rounds`,
          },
          true,
        );
        break;
      }
      timeline.push({
        at: deps.now().toISOString(),
        kind: 'extended',
        detail: `${maxRounds} -> ${extended}`,
      });
      maxRounds = extended;
    }
  }

  await deps.events.publish('agent_phase_completed', record(false, null));
  const called = executions.map((e) => e.name);
  if (phase === 'plan') {
    const plan = parsePlan(text);
    return {
      outcome: { phase, decision: plan.decision, plan: plan.plan },
      tokens: tokens(),
      picked: plan.tools,
      tools: called,
    };
  }
  if (phase === 'execute')
    return { outcome: { phase, response: text, delivered }, tokens: tokens(), tools: called };
  return { outcome: { phase, ...parseReview(text) }, tokens: tokens(), tools: called };
}
