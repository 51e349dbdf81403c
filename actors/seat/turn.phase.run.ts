/**
 * One run of a phase (turn.phase.ts), live or resumed: the state its record is built from and the steps
 * of its round loop. An earlier run's rounds and tool results are replayed through the same steps; the
 * timeline marks, once, where the phase goes on live. Event ids derive from the phase, so a resumed
 * phase's records replace, never add to, the first run's.
 */
import type { ToolEntry, TraceSpan } from '../../schema/index.js';
import { LlmUnavailableError, type LlmMessage } from './providers/index.js';
import type { FailReason, PhaseName } from './seat.machine.js';
import { extendRounds, phaseRounds } from './seat.limits.js';
import { workItemOf } from './seat.types.js';
import { closingNote, phaseMessage, systemPrompt } from './turn.prompts.js';
import type { TurnDeps } from './turn.deps.js';
import { stopped } from './turn.tools.js';
import { settleWrites, WritesBehind, type RoundScope } from './turn.round.js';
import { askModel, settleSpend, settleUnfinished } from './turn.round.model.js';
import { phaseTool } from './turn.round.tool.js';
import { TurnCalls } from './turn.calls.js';
import { isCut } from './turn.cut.js';
import type { PhaseJournal, PhaseRecord } from './turn.journal.js';
import type { RoundAnswer } from './turn.journal.records.js';
import { endingCall, phaseLive, type PhaseLive } from './turn.live.js';
import { PhaseDeferred, PhaseFailure, type PhaseInput, type PhaseResult } from './turn.phase.types.js';
import {
  addSpent,
  phaseRecord,
  phaseResult,
  roundRow,
  tokensOf,
  type PhaseSoFar,
  type Round,
  type TimelineMark,
  type ToolExecution,
} from './turn.phase.record.js';

/** The tools a phase offers: none in review; the plan's picks in execute when it named known ones. */
function toolsOf(all: ToolEntry[], phase: PhaseName, picked: readonly string[]): ToolEntry[] {
  if (phase === 'review') return [];
  if (phase === 'execute' && picked.length > 0) {
    const chosen = all.filter((t) => picked.includes(t.name));
    if (chosen.length > 0) return chosen;
  }
  return all;
}

export class PhaseRun implements PhaseSoFar {
  readonly key: PhaseSoFar['key'];
  readonly turn: PhaseInput['turn'];
  readonly started: Date;
  readonly system: string;
  readonly ceiling: number;
  readonly rounds: Round[] = [];
  readonly executions: ToolExecution[] = [];
  readonly timeline: TimelineMark[];
  readonly totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  model: string;
  text = '';
  delivered = false;
  maxRounds: number;

  private readonly prior: PhaseRecord | null;
  private readonly where: { readonly phase: PhaseName; readonly iteration: number };
  private readonly tools: ToolEntry[];
  private readonly byName: Map<string, ToolEntry>;
  private readonly messages: LlmMessage[];
  private readonly chain: string[];
  private readonly live: PhaseLive;
  private readonly scope: RoundScope;
  private readonly calls: TurnCalls;
  /** True while a resumed phase replays what an earlier run recorded. */
  private replaying: boolean;
  private toolRounds = 0;
  /**
   * Set once the round limit is reached: one more call, without tools, for the phase's account. A phase
   * that offers no tool (review) is that one call from the start: a tool call in its answer has nothing
   * to run and would only loop into a max_rounds breach.
   */
  private closing: boolean;

  constructor(
    private readonly deps: TurnDeps,
    private readonly input: PhaseInput,
    private readonly journal: PhaseJournal,
    picked: readonly string[],
    span: TraceSpan,
  ) {
    const { turn, phase, seat } = input;
    this.turn = turn;
    this.prior = journal.prior;
    this.where = { phase, iteration: turn.iteration };
    this.key = { turn_id: turn.turn_id, phase, iteration: turn.iteration };
    this.started = this.prior?.started ? new Date(this.prior.started.started_at) : deps.now();
    this.system = systemPrompt(input.charter, seat, phase);
    this.tools = toolsOf(deps.tools.toolsFor(seat.handle), phase, picked);
    this.byName = new Map(this.tools.map((t) => [t.name, t]));
    this.messages = [{ role: 'user', content: phaseMessage(turn, phase, input.known ?? null) }];
    this.chain = deps.llm.resolve(seat.llm ? { llm: seat.llm } : seat.handle);
    const opening = phaseRounds(turn.limits, phase);
    this.ceiling = opening.ceiling;
    this.maxRounds = opening.max_rounds;
    this.timeline = [{ at: this.started.toISOString(), kind: 'started' }];
    // The model of the chain's first entry until one answers (then the model that answered).
    const first = this.chain[0];
    this.model = (first !== undefined ? deps.llm.snapshot?.()[first]?.model : undefined) ?? '';
    this.live = phaseLive(
      deps,
      this.key,
      { model: this.model, max_rounds: this.maxRounds, rounds: this.rounds, executions: this.executions },
      deps.progressEveryMs !== undefined ? { everyMs: deps.progressEveryMs } : {},
      input.signal,
    );
    this.scope = {
      deps,
      turn,
      phase,
      seat,
      caps: input.caps,
      signal: input.signal,
      journal,
      live: this.live,
      span,
      results: new WritesBehind(),
    };
    this.calls = input.calls ?? new TurnCalls();
    this.replaying = this.prior !== null;
    // Answers an earlier run of the phase saw begin and fail: they cost what they cost whatever this run asks.
    addSpent(this.totals, this.prior?.unfinished ?? []);
    this.closing = this.tools.length === 0;
  }

  /** The phase from where its journal ends to its outcome, or a PhaseFailure / PhaseDeferred. */
  async run(): Promise<PhaseResult> {
    // Every exit ends the view: no frame of a phase that is over (thrown out of, too) is sent after it.
    try {
      await this.announce();
      // Answers that failed as an earlier run ended, their spend on record and maybe not stored.
      await settleUnfinished(this.scope);
      for (let round = -1; ; round += 1) {
        // 1. the model's answer: recorded by an earlier run, else asked now
        const answer = await this.answer(round);
        // The closing answer ends the phase whatever it asks for (no tool was offered).
        if (this.closing || answer.tool_calls.length === 0) break;
        // 2. tools: recorded results replayed, the rest run (a call in flight at a cut by the rules)
        await this.runTools(round, answer);
        // 3. the rounds limit: extended when the turn allows, else one closing call follows
        await this.countToolRound();
      }
      return await this.complete();
    } finally {
      this.live.close();
    }
  }

  /** `agent_phase_started` and its journal entry, unless an earlier run of the phase wrote them. */
  private async announce(): Promise<void> {
    if (this.prior?.started) return;
    const { turn, key } = this;
    await this.deps.events.publish(
      'agent_phase_started',
      {
        ...key,
        model: this.model,
        started_at: this.started.toISOString(),
        turn_started_at: turn.started_at,
        max_rounds: this.maxRounds,
        round_ceiling: this.ceiling,
        work_item: workItemOf(turn.wake),
        ...(key.phase === 'plan' && turn.iteration === 0 ? { trigger: turn.wake.kind } : {}),
      },
      false,
      this.eventId('phase-started'),
    );
    await this.journal.write({
      kind: 'phase_started',
      ...this.where,
      started_at: this.started.toISOString(),
      max_rounds: this.maxRounds,
    });
  }

  private async answer(round: number): Promise<RoundAnswer> {
    const recorded = this.prior?.rounds.get(round);
    let answer: RoundAnswer;
    if (recorded) {
      answer = recorded.answer;
      addSpent(this.totals, recorded.unfinished ?? []);
      await settleSpend(this.scope, recorded);
    } else {
      this.goLive();
      const asked = await askModel(this.scope, round, {
        chain: this.chain,
        system: this.system,
        messages: this.messages,
        tools: this.closing ? [] : this.tools,
      });
      addSpent(this.totals, asked.unfinished ?? []);
      if ('failure' in asked)
        return this.fail(asked.failure.reason, asked.failure.message, asked.failure.cause);
      answer = asked.result;
    }
    this.tally(round, answer);
    return answer;
  }

  /** The answer counted in the phase's tokens and rounds; its text is the phase's response so far. */
  private tally(round: number, answer: RoundAnswer): void {
    this.model = answer.model;
    const u = answer.usage;
    this.totals.input += u.input_tokens;
    this.totals.output += u.output_tokens;
    this.totals.cacheRead += u.cache_read_tokens;
    this.totals.cacheWrite += u.cache_write_tokens;
    this.rounds.push(roundRow(round, answer));
    this.text = answer.text;
    this.live.settled({ model: this.model, response: this.text, narration: this.text });
  }

  private async runTools(round: number, answer: RoundAnswer): Promise<void> {
    const { signal } = this.input;
    this.messages.push({
      role: 'assistant',
      content: answer.text,
      tool_calls: answer.tool_calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
    });
    for (const [index, call] of answer.tool_calls.entries()) {
      if (!this.prior?.calls.get(`${round}.${index}`)?.result) this.goLive();
      // Counted replayed or live, in order: a resumed turn's calls are where its first run had them.
      const before = this.calls.before(call.name);
      const at = { round, index, before };
      const run = await phaseTool(this.scope, this.prior, at, call, this.byName.get(call.name));
      if (run === null) return this.fail('aborted', stopped(signal));
      this.calls.settled(run.execution);
      this.executions.push(run.execution);
      this.live.settled({});
      this.timeline.push({ at: run.execution.started_at, kind: 'tool', detail: call.name });
      // Cut mid-call: the row says the call was cancelled; nothing the tool yields is recorded.
      if (run.cancelled) return this.fail('aborted', stopped(signal));
      if (run.delivered) this.delivered = true;
      this.messages.push({ role: 'tool', tool_call_id: call.id, content: run.output, is_error: run.isError });
    }
  }

  private async countToolRound(): Promise<void> {
    this.toolRounds += 1;
    if (this.toolRounds < this.maxRounds) return;
    const extended = extendRounds(this.turn.limits, this.maxRounds, this.ceiling);
    if (extended === null) return this.closeRounds();
    this.timeline.push({
      at: this.deps.now().toISOString(),
      kind: 'extended',
      detail: `${this.maxRounds} -> ${extended}`,
    });
    this.maxRounds = extended;
    this.live.maxRounds(extended);
  }

  /** The round limit is reached for good: a guard breach, and the closing call is asked for an account. */
  private async closeRounds(): Promise<void> {
    const { phase } = this.key;
    await this.deps.events.publish(
      'turn.guard_breach',
      {
        turn_id: this.turn.turn_id,
        phase,
        kind: 'max_rounds',
        detail: `${phase} reached ${this.maxRounds} tool rounds`,
      },
      true,
      this.eventId('max-rounds'),
    );
    // The phase ends with an account, not with a tool-calling answer that says nothing.
    this.closing = true;
    this.messages.push({ role: 'user', content: closingNote(this.maxRounds) });
  }

  /** The phase's record published and journaled; its result returned. */
  private async complete(): Promise<PhaseResult> {
    await settleWrites(this.scope);
    await endingCall(this.live, () =>
      this.deps.events.publish(
        'agent_phase_completed',
        phaseRecord(this, this.deps.now(), false, null),
        false,
        this.eventId('phase'),
      ),
    );
    const result = phaseResult(this);
    const { picked: chosen, ...done } = result;
    await this.journal.write({
      kind: 'phase_completed',
      ...this.where,
      ...done,
      tools: [...done.tools],
      skills: [...done.skills],
      ...(chosen ? { picked: [...chosen] } : {}),
    });
    return result;
  }

  /** The phase ends without its outcome: cut, deferred, or failed on record. */
  private async fail(reason: FailReason, message: string, cause?: unknown): Promise<never> {
    // The phase fails for its own reason; a write behind failing meanwhile adds nothing to it.
    await settleWrites(this.scope).catch(() => undefined);
    // A cut is no failure: nothing is recorded, the next holder resumes the phase.
    if (reason === 'aborted' && isCut(this.input.signal))
      throw new PhaseFailure(reason, message, tokensOf(this), { cause });
    // Keys cooling until a known instant: the turn waits for it rather than failing.
    if (reason === 'provider' && cause instanceof LlmUnavailableError && cause.retryAt !== null)
      throw new PhaseDeferred(cause.retryAt, message, { cause });
    await endingCall(this.live, () =>
      this.deps.events.publish(
        'agent_phase_completed',
        { ...phaseRecord(this, this.deps.now(), true, message), in_flight: this.live.inFlight() },
        true,
        this.eventId('phase'),
      ),
    );
    await this.journal.write({
      kind: 'phase_failed',
      ...this.where,
      reason,
      error: message,
      tokens: tokensOf(this),
    });
    throw new PhaseFailure(reason, message, tokensOf(this), { cause });
  }

  /** Marks the timeline once, where a resumed phase stops replaying and goes on live. */
  private goLive(): void {
    if (!this.replaying) return;
    this.replaying = false;
    this.timeline.push({
      at: this.deps.now().toISOString(),
      kind: 'resumed',
      detail: 'from the turn journal',
    });
  }

  /** Ids derived from the phase: a resumed phase's records replace, never add to, the first run's. */
  private eventId(what: string): string {
    return `${what}-${this.turn.turn_id}-${this.key.phase}.${this.turn.iteration}`;
  }
}
