/**
 * The two live steps of a phase round, journaled: the model call (abort and budget first, then the call,
 * then its answer and spend record written together, the spend counted in the budget at once; the spend of
 * an answer that failed after it began journaled before it is stored) and
 * one tool call (its result journaled after it runs; its start before, unless it may simply run again). A
 * tool call an earlier run started but did not finish is not repeated blindly: a retriable tool runs
 * again, any other is answered "outcome unknown". So a retriable tool's result is written behind: the
 * next model call does not wait for it, the round record after that call does.
 */
import { randomUUID } from 'node:crypto';
import { noopTracer, type SpendRecord, type ToolEntry, type TraceSpan } from '../../schema/index.js';
import {
  LlmAbortedError,
  LlmError,
  LlmUnavailableError,
  type LlmMessage,
  type LlmResult,
  type LlmUsage,
  type UnfinishedCall,
} from './providers/index.js';
import type { FailReason, PhaseName, Turn } from './seat.machine.js';
import type { SeatProfile } from './seat.profile.js';
import type { TurnDeps } from './turn.deps.js';
import type { PhaseJournal, PhaseRecord } from './turn.journal.js';
import type { RoundAnswer } from './turn.journal.records.js';
import { endingCall, type PhaseLive } from './turn.live.js';
import { originOf, retriable, runToolCall, stopped, unknownOutcome, type ToolRun } from './turn.tools.js';

/**
 * How much of a tool's output the journal keeps: a bus message stays well under a server's payload limit
 * (NATS: 1 MiB by default). A resumed turn replays an output longer than this clipped.
 */
export const JOURNALED_OUTPUT_CHARS = 256 * 1024;
const journaled = (output: string): string =>
  output.length > JOURNALED_OUTPUT_CHARS
    ? `${output.slice(0, JOURNALED_OUTPUT_CHARS)}… [clipped: the full output was ${output.length} characters]`
    : output;

/** The phase a round belongs to, as its steps need it. */
export interface RoundScope {
  readonly deps: TurnDeps;
  readonly turn: Turn;
  readonly phase: PhaseName;
  readonly seat: SeatProfile;
  readonly caps: { readonly org: number; readonly seat: number };
  readonly signal: AbortSignal;
  readonly journal: PhaseJournal;
  /** The phase's live view (`agent_turn_progress`): the call running now, the text being written. */
  readonly live: PhaseLive;
  /** The phase's span: model and tool call spans are its children. */
  readonly span: TraceSpan;
  /** Retriable tools' results being journaled while the next model call runs. */
  readonly results: WritesBehind;
}

/**
 * Writes a phase goes on without waiting for, waited for where a later step needs them: the tool results
 * before the next round's record and before the phase ends. A failed write fails the phase there as it
 * would have where it began.
 */
export class WritesBehind {
  private pending: Promise<unknown>[] = [];

  add(write: Promise<unknown>): void {
    write.catch(() => undefined); // observed by settle
    this.pending.push(write);
  }

  async settle(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    await Promise.all(pending);
  }
}

/** Waits for every write the phase went on without (see `WritesBehind`). */
export async function settleWrites(scope: RoundScope): Promise<void> {
  await scope.results.settle();
}

/** The model's answer, or why the phase fails instead. */
export type Asked =
  | { readonly result: RoundAnswer }
  | { readonly failure: { readonly reason: FailReason; readonly message: string; readonly cause?: unknown } };

const failure = (reason: FailReason, message: string, cause?: unknown): Asked => ({
  failure: { reason, message, cause },
});

/** One live model call of round `round`, shown on the phase's live view as it runs and streams. */
export async function askModel(
  scope: RoundScope,
  round: number,
  request: {
    readonly chain: readonly string[];
    readonly system: string;
    readonly messages: readonly LlmMessage[];
    readonly tools: readonly ToolEntry[];
  },
): Promise<Asked> {
  const { deps, turn, seat, signal } = scope;
  // 1. abort and budget, before every model call
  if (signal.aborted) return failure('aborted', stopped(signal));
  const refusal = await deps.budget.check(seat.handle, scope.caps);
  if (refusal) {
    // The refusal fails the phase: the view's last frame goes before it.
    await endingCall(scope.live, () =>
      deps.events.publish('budget_exhausted', { ...refusal, turn_id: turn.turn_id }, true),
    );
    return failure('budget', `${refusal.scope} token budget exhausted (${refusal.used}/${refusal.cap})`);
  }
  // 2. the model call
  const roundStart = deps.now();
  const first = request.chain[0];
  const expected = (first && deps.llm.snapshot?.()[first]?.model) ?? '';
  scope.live.modelCall(round, expected, first ?? null);
  // GenAI semantic conventions: the chain's first entry is the request; the answer names who served it.
  const span = (deps.tracer ?? noopTracer).startSpan(expected ? `chat ${expected}` : 'chat', {
    kind: 'client',
    parent: scope.span,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': expected,
      'svc.round': round,
      ...(first ? { 'svc.llm_entry': first } : {}),
    },
  });
  try {
    const asked = await modelCall(scope, { round, start: roundStart }, request, span);
    if ('failure' in asked) span.fail(asked.failure.message);
    return asked;
  } finally {
    span.end();
  }
}

async function modelCall(
  scope: RoundScope,
  { round, start: roundStart }: { readonly round: number; readonly start: Date },
  request: Parameters<typeof askModel>[2],
  span: TraceSpan,
): Promise<Asked> {
  const { deps, turn, phase, seat, signal } = scope;
  let answer: LlmResult;
  // Answers that began and failed: the provider charges for them although no result came.
  const unfinished: UnfinishedCall[] = [];
  try {
    const stream = deps.llm.call(
      request.chain,
      {
        system: request.system,
        messages: [...request.messages],
        ...(request.tools.length ? { tools: [...request.tools] } : {}),
        signal,
      },
      {
        seat: seat.handle,
        trace: { trace_id: turn.wake.trace_id, parent_span_id: null },
        onUnfinished: (call) => unfinished.push(call),
      },
    );
    // The text as it streams in is the live view's round being written (a failure throws here too).
    let partial = '';
    for await (const delta of stream) {
      if (delta.type !== 'text') continue;
      partial += delta.text;
      scope.live.partial(partial);
    }
    answer = await stream.result();
  } catch (error) {
    await journalFailedAnswers(
      scope,
      round,
      unfinished.map((call) => spendOf(scope, call)),
    );
    if (error instanceof LlmAbortedError || signal.aborted) return failure('aborted', stopped(signal), error);
    if (error instanceof LlmUnavailableError) {
      // The phase ends here (deferred to retry_at, or failed).
      const last = error.attempts.at(-1);
      await endingCall(scope.live, () =>
        deps.events.publish(
          'llm_unavailable',
          {
            provider: last?.provider ?? request.chain[0] ?? '',
            reason: last?.reason ?? 'not_configured',
            turn_id: turn.turn_id,
            phase,
            retry_at: error.retryAt,
            chain: [...request.chain],
            attempts: error.attempts,
          },
          true,
        ),
      );
      return failure('provider', error.message, error);
    }
    // A provider's own error reaches here only after its output streamed (no fallback can follow): a
    // provider failure on record as one, waiting would not cure it.
    if (error instanceof LlmError) {
      await endingCall(scope.live, () => publishCutAnswer(scope, request.chain, error));
      return failure('provider', error.message, error);
    }
    return failure('error', error instanceof Error ? error.message : String(error), error);
  }
  const u = answer.usage;
  span.setAttributes({
    'gen_ai.provider.name': answer.provider,
    'gen_ai.response.model': answer.model,
    'gen_ai.usage.input_tokens': u.input_tokens,
    'gen_ai.usage.output_tokens': u.output_tokens,
  });
  const result: RoundAnswer = {
    text: answer.text,
    tool_calls: answer.tool_calls.map((c) => ({ ...c })),
    usage: { ...u },
    model: answer.model,
    provider: answer.provider,
    started_at: roundStart.toISOString(),
    duration_ms: answer.duration_ms,
  };
  const spend = spendOf(scope, { ...answer, usage_estimated: answer.usage_estimated ?? false });
  const failed = unfinished.map((call) => spendOf(scope, call));
  // 3. the journal and the spend records together, so they share the bus's group commits, behind the
  // results of the tools this answer follows; the stored spend counts in the budget at once
  await Promise.all([
    scope.results.settle(),
    scope.journal.write({
      kind: 'round',
      phase,
      iteration: turn.iteration,
      round,
      answer: result,
      spend,
      ...(failed.length > 0 ? { unfinished: failed } : {}),
    }),
    countSpend(scope, [spend, ...failed]),
  ]);
  return { result };
}

/** The spend record of one model call of the phase; `estimated` when its counts are ours. */
function spendOf(
  { deps, turn, phase, seat }: RoundScope,
  call: { provider: string; model: string; usage: LlmUsage; usage_estimated: boolean },
): SpendRecord {
  const u = call.usage;
  return {
    id: randomUUID(),
    timestamp: deps.now().toISOString(),
    node: deps.node,
    handle: seat.handle,
    agent_id: seat.agent_id,
    role: seat.name,
    turn_id: turn.turn_id,
    phase,
    worker: null,
    provider: call.provider,
    model: call.model,
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_read_tokens: u.cache_read_tokens,
    cache_write_tokens: u.cache_write_tokens,
    total_tokens: u.input_tokens + u.output_tokens,
    ...(call.usage_estimated ? { estimated: true as const } : {}),
  };
}

/** Stores spend records and counts them in the budget at once. */
async function countSpend({ deps }: RoundScope, records: readonly SpendRecord[]): Promise<void> {
  await Promise.all(records.map((record) => deps.spend(record)));
  for (const record of records) deps.budget.count(record);
}

/**
 * The spend of answers that began and failed, with no round to carry it: journaled, then stored (and
 * counted). A run killed between the two leaves it on record for the next to store (`settleUnfinished`);
 * one killed before the journal write made no record the failure outlives, and its spend is lost with it.
 */
async function journalFailedAnswers(
  scope: RoundScope,
  round: number,
  records: readonly SpendRecord[],
): Promise<void> {
  if (records.length === 0) return;
  const { phase, turn } = scope;
  await scope.journal.write({
    kind: 'unfinished',
    phase,
    iteration: turn.iteration,
    round,
    spend: [...records],
  });
  await countSpend(scope, records);
}

/**
 * `llm_unavailable` for an answer that failed after its output streamed, in the shape of a failed chain
 * (ops/turn-engine.md "Provider failures"), with what the answer cost as far as known.
 */
function publishCutAnswer(scope: RoundScope, chain: readonly string[], error: LlmError): Promise<void> {
  const spent = error.unfinished;
  const attempt = { provider: error.provider, reason: error.kind, status: error.status };
  return scope.deps.events.publish(
    'llm_unavailable',
    {
      ...attempt,
      turn_id: scope.turn.turn_id,
      phase: scope.phase,
      retry_at: null,
      chain: [...chain],
      attempts: error.attempts ? [...error.attempts] : [attempt],
      after_output: true,
      ...(spent
        ? { model: spent.model, usage: { ...spent.usage }, usage_estimated: spent.usage_estimated }
        : {}),
    },
    true,
  );
}

/**
 * A recorded round's spend, sent again when the journal ends with it (the run may have died before its
 * spend record was stored): its id makes a repeat a duplicate, counted once in the budget.
 */
export async function settleSpend(
  scope: RoundScope,
  { spend, unfinished = [] }: { readonly spend: SpendRecord; readonly unfinished?: readonly SpendRecord[] },
): Promise<void> {
  if (spend.id !== scope.journal.unsettledSpend) return;
  await countSpend(scope, [spend, ...unfinished]);
}

/**
 * The spend of the phase's answers that failed, sent again when the journal ends with it (the run may have
 * died between journaling and storing it): each id makes a repeat a duplicate, counted once in the budget.
 */
export async function settleUnfinished(scope: RoundScope): Promise<void> {
  await countSpend(scope, scope.journal.unsettledUnfinished);
}

/**
 * Tool call `index` of round `round`: its recorded result when an earlier run has one; when that run was
 * cut while the call was in flight, a retry for a retriable tool, else "outcome unknown"; otherwise run,
 * its start journaled first unless it is retriable. Null when the turn was stopped before the call could
 * start.
 */
export async function phaseTool(
  scope: RoundScope,
  prior: PhaseRecord | null,
  at: { readonly round: number; readonly index: number; readonly before: number },
  call: RoundAnswer['tool_calls'][number],
  entry: ToolEntry | undefined,
): Promise<(ToolRun & { readonly cancelled: boolean; readonly replayed: boolean }) | null> {
  const { deps, turn, phase, signal, journal } = scope;
  const where = { phase, iteration: turn.iteration, round: at.round, index: at.index };
  const earlier = prior?.calls.get(`${at.round}.${at.index}`);
  if (earlier?.result) {
    const r = earlier.result;
    const run = { output: r.output, isError: r.is_error, delivered: r.delivered, execution: r.execution };
    return { ...run, cancelled: false, replayed: true };
  }
  if (signal.aborted) return null;
  let run: ToolRun & { readonly cancelled: boolean };
  if (earlier?.started && !retriable(entry)) {
    run = unknownOutcome(deps, call, entry);
  } else {
    // Only a call that may not run twice needs its start on record: a retriable one in flight at a cut
    // simply runs again, so its start costs no bus round trip.
    if (!earlier?.started && !retriable(entry))
      await journal.write({ kind: 'tool_started', ...where, call_id: call.id, name: call.name });
    const ctx = {
      call_id: `${turn.turn_id}/${phase}.${turn.iteration}/${at.round}.${at.index}`,
      seat: scope.seat.handle,
      agent_id: scope.seat.agent_id,
      turn_id: turn.turn_id,
      trace_id: turn.wake.trace_id,
      signal,
      calls_before: at.before,
    };
    scope.live.toolCall(call.name, originOf(entry));
    const span = (deps.tracer ?? noopTracer).startSpan(`execute_tool ${call.name}`, {
      parent: scope.span,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.name,
        'gen_ai.tool.call.id': call.id,
        'svc.tool.origin': originOf(entry),
      },
    });
    try {
      const parent = span.traceId === ctx.trace_id ? span.spanId : null;
      run = await runToolCall(deps, { ...ctx, parent_span_id: parent }, call, entry);
      if (run.isError) span.fail(run.execution.error ?? 'the tool answered an error');
    } finally {
      span.end();
    }
  }
  // Cut mid-call: nothing is journaled, so the next holder meets the call as in flight.
  if (run.cancelled) return { ...run, replayed: false };
  const written = journal.write({
    kind: 'tool_result',
    ...where,
    output: journaled(run.output),
    is_error: run.isError,
    delivered: run.delivered,
    execution: run.execution,
  });
  // A retriable call whose result is lost in a cut simply runs again; any other is on record first.
  if (retriable(entry)) scope.results.add(written);
  else await written;
  return { ...run, replayed: false };
}
