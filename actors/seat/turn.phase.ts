/**
 * Runs one phase of a turn (the host's `runPhase` effect): the tool loop on the seat's provider chain.
 *   1. before each model call: stop if aborted, check the budget
 *   2. call the model (progress streamed on `agent_turn_progress`), record a spend record
 *   3. run the tools it asked for through the router (a call in flight is abandoned, and an MCP server
 *      told, when the turn is cut); loop until it answers without tools or the
 *      round limit (extended by `extension_round_step` when enabled, up to the ceiling) is reached
 * and returns the phase record (`agent_phase_completed`) with the outcome the machine folds in.
 *
 * Every step is journaled (turn.journal.ts). A phase an earlier run started replays what that run
 * recorded — its model answers and tool results, in order, through the same loop — and goes on live
 * from where the record ends; a phase it finished or failed returns its record without running. A cut
 * (shutdown, lost lease, a stop_running pause) records nothing as failed: the next holder resumes the phase;
 * so does a provider chain unavailable until a known `retry_at` (PhaseDeferred): the turn waits for it.
 */
import {
  noopTracer,
  SKILL_READ_TOOL,
  skillOfAnswer,
  type Payloads,
  type ToolEntry,
  type TraceSpan,
} from '../../schema/index.js';
import { LlmUnavailableError, type LlmMessage } from './providers/index.js';
import type { FailReason, PhaseName, PhaseOutcome, Turn } from './seat.machine.js';
import { extendRounds, phaseRounds } from './seat.limits.js';
import { workItemOf } from './seat.types.js';
import { parsePlan, parseReview, phaseMessage, systemPrompt } from './turn.prompts.js';
import type { TurnDeps } from './turn.deps.js';
import { stopped } from './turn.tools.js';
import {
  askModel,
  phaseTool,
  settleSpend,
  settleWrites,
  WritesBehind,
  type RoundScope,
} from './turn.round.js';
import type { SeatProfile, Charter } from './seat.profile.js';
import { isCut } from './turn.cut.js';
import { noJournal, type PhaseJournal, type RoundAnswer } from './turn.journal.js';
import { phaseLive } from './turn.live.js';

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

/**
 * A phase that cannot go on until the provider chain has a key again (`llm_unavailable` with a known
 * `retry_at`): not a failure — nothing is recorded, and the turn resumes from its journal at `retryAt`.
 */
export class PhaseDeferred extends Error {
  override name = 'PhaseDeferred';
  constructor(
    readonly retryAt: string,
    message: string,
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
  /** The turn's journal for this phase (default: none kept). */
  readonly journal?: PhaseJournal;
  /** The turn's span: the phase's span is its child. */
  readonly parent?: TraceSpan;
  /** What the seat knows that bears on the turn (turn.context.ts); default nothing. */
  readonly known?: string | null;
}

export interface PhaseResult {
  readonly outcome: PhaseOutcome;
  readonly tokens: number;
  /** Plan only: the tools it picked for execute. */
  readonly picked?: readonly string[];
  /** The tools the phase called, in order (the turn's episode lists them). */
  readonly tools: readonly string[];
  /** The tool skills it read (`skill_read` answered), in order: the episode's `skills_used`. */
  readonly skills: readonly string[];
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

/** Runs the phase inside its span (ops/tracing.md): the span ends with the phase, failed when it fails. */
export async function runPhase(
  deps: TurnDeps,
  input: PhaseInput,
  picked: readonly string[],
): Promise<PhaseResult> {
  const span = (deps.tracer ?? noopTracer).startSpan(`phase ${input.phase}`, {
    parent: input.parent ?? null,
    attributes: {
      'svc.seat': input.seat.handle,
      'svc.turn_id': input.turn.turn_id,
      'svc.phase': input.phase,
      'svc.iteration': input.turn.iteration,
    },
  });
  try {
    const result = await phaseIn(deps, input, picked, span);
    span.setAttributes({ 'svc.tokens': result.tokens });
    return result;
  } catch (error) {
    if (error instanceof PhaseDeferred) span.setAttributes({ 'svc.deferred_until': error.retryAt });
    else span.fail(error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    span.end();
  }
}

async function phaseIn(
  deps: TurnDeps,
  input: PhaseInput,
  picked: readonly string[],
  span: TraceSpan,
): Promise<PhaseResult> {
  const { turn, phase, seat } = input;
  const journal = input.journal ?? noJournal;
  const prior = journal.prior;
  const where = { phase, iteration: turn.iteration };
  // Finished or failed before the cut: its record stands, nothing runs or is published again.
  if (prior?.completed) {
    const { outcome, tokens, picked, tools, skills } = prior.completed;
    return { outcome, tokens, tools, skills: skills ?? [], ...(picked ? { picked } : {}) };
  }
  if (prior?.failed) throw new PhaseFailure(prior.failed.reason, prior.failed.error, prior.failed.tokens);
  const started = prior?.started ? new Date(prior.started.started_at) : deps.now();
  const system = systemPrompt(input.charter, seat, phase);
  const tools = toolsOf(deps.tools.toolsFor(seat.handle), phase, picked);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const messages: LlmMessage[] = [{ role: 'user', content: phaseMessage(turn, phase, input.known ?? null) }];
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
  const live = phaseLive(
    deps,
    key,
    { model, max_rounds: maxRounds, rounds, executions },
    deps.progressEveryMs !== undefined ? { everyMs: deps.progressEveryMs } : {},
  );
  // Every exit ends the view: no frame of a phase that is over (thrown out of, too) is sent after it.
  try {
    const scope: RoundScope = {
      deps,
      turn,
      phase,
      seat,
      caps: input.caps,
      signal: input.signal,
      journal,
      live,
      span,
      results: new WritesBehind(),
    };
    // Ids derived from the phase: a resumed phase's records replace, never add to, the first run's.
    const eventId = (what: string): string => `${what}-${turn.turn_id}-${phase}.${turn.iteration}`;
    /** Marks the timeline once, where a resumed phase stops replaying and goes on live. */
    let replaying = prior !== null;
    const goLive = (): void => {
      if (!replaying) return;
      replaying = false;
      timeline.push({ at: deps.now().toISOString(), kind: 'resumed', detail: 'from the turn journal' });
    };

    if (!prior?.started) {
      await deps.events.publish(
        'agent_phase_started',
        {
          ...key,
          model,
          started_at: started.toISOString(),
          max_rounds: maxRounds,
          round_ceiling: ceiling,
          work_item: workItemOf(turn.wake),
          ...(phase === 'plan' && turn.iteration === 0 ? { trigger: turn.wake.kind } : {}),
        },
        false,
        eventId('phase-started'),
      );
      await journal.write({
        kind: 'phase_started',
        ...where,
        started_at: started.toISOString(),
        max_rounds: maxRounds,
      });
    }

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
        work_item: workItemOf(turn.wake),
        system_prompt: system,
        input_tokens: totals.input,
        output_tokens: totals.output,
        timeline: [
          ...timeline,
          {
            at: end.toISOString(),
            kind: failed ? 'failed' : 'completed',
            ...(error ? { detail: error } : {}),
          },
        ],
        error,
      };
    };
    const fail = async (reason: FailReason, message: string, cause?: unknown): Promise<never> => {
      // The phase fails for its own reason; a write behind failing meanwhile adds nothing to it.
      await settleWrites(scope).catch(() => undefined);
      // A cut is no failure: nothing is recorded, the next holder resumes the phase.
      if (reason === 'aborted' && isCut(input.signal))
        throw new PhaseFailure(reason, message, tokens(), { cause });
      // Keys cooling until a known instant: the turn waits for it rather than failing.
      if (reason === 'provider' && cause instanceof LlmUnavailableError && cause.retryAt !== null)
        throw new PhaseDeferred(cause.retryAt, message, { cause });
      live.close();
      await deps.events.publish('agent_phase_completed', record(true, message), true, eventId('phase'));
      await journal.write({ kind: 'phase_failed', ...where, reason, error: message, tokens: tokens() });
      throw new PhaseFailure(reason, message, tokens(), { cause });
    };

    let toolRounds = 0;
    /**
     * Set once the round limit is reached: one more call, without tools, for the phase's account. A phase
     * that offers no tool (review) is that one call from the start: a tool call in its answer has nothing
     * to run and would only loop into a max_rounds breach.
     */
    let closing = tools.length === 0;
    for (let round = -1; ; round += 1) {
      // 1. the model's answer: recorded by an earlier run, else asked now
      const recorded = prior?.rounds.get(round);
      let result: RoundAnswer;
      if (recorded) {
        result = recorded.answer;
        await settleSpend(scope, recorded.spend);
      } else {
        goLive();
        const asked = await askModel(scope, round, { chain, system, messages, tools: closing ? [] : tools });
        if ('failure' in asked) return fail(asked.failure.reason, asked.failure.message, asked.failure.cause);
        result = asked.result;
      }
      model = result.model;
      const u = result.usage;
      totals.input += u.input_tokens;
      totals.output += u.output_tokens;
      totals.cacheRead += u.cache_read_tokens;
      totals.cacheWrite += u.cache_write_tokens;
      rounds.push({
        round,
        started_at: result.started_at,
        duration_ms: result.duration_ms,
        model: result.model,
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_read_tokens: u.cache_read_tokens,
        cache_write_tokens: u.cache_write_tokens,
        tool_calls: result.tool_calls.map((c) => c.name),
      });
      text = result.text;
      live.settled({ model, response: text, narration: text });
      // The closing answer ends the phase whatever it asks for (no tool was offered).
      if (closing || result.tool_calls.length === 0) break;

      // 2. tools: recorded results replayed, the rest run (a call in flight at a cut by the rules)
      messages.push({
        role: 'assistant',
        content: result.text,
        tool_calls: result.tool_calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
      });
      for (const [index, call] of result.tool_calls.entries()) {
        if (!prior?.calls.get(`${round}.${index}`)?.result) goLive();
        const run = await phaseTool(scope, prior, { round, index }, call, byName.get(call.name));
        if (run === null) return fail('aborted', stopped(input.signal));
        executions.push(run.execution);
        live.settled({});
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
            eventId('max-rounds'),
          );
          // The phase ends with an account, not with a tool-calling answer that says nothing.
          closing = true;
          messages.push({ role: 'user', content: closingNote(maxRounds) });
          continue;
        }
        timeline.push({
          at: deps.now().toISOString(),
          kind: 'extended',
          detail: `${maxRounds} -> ${extended}`,
        });
        maxRounds = extended;
        live.maxRounds(extended);
      }
    }

    await settleWrites(scope);
    live.close();
    await deps.events.publish('agent_phase_completed', record(false, null), false, eventId('phase'));
    const result = outcomeOf(
      phase,
      text,
      delivered,
      tokens(),
      executions.map((e) => e.name),
      skillsRead(executions),
    );
    const { picked: chosen, ...done } = result;
    await journal.write({
      kind: 'phase_completed',
      ...where,
      ...done,
      tools: [...done.tools],
      skills: [...done.skills],
      ...(chosen ? { picked: [...chosen] } : {}),
    });
    return result;
  } finally {
    live.close();
  }
}

/** What the model reads before the closing call of a phase that used up its tool rounds. */
export const closingNote = (rounds: number): string =>
  `You have used this phase's ${rounds} tool rounds: no more tools can be called. ` +
  'Give your account now: what you did, what it showed, and what is left undone.';

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
