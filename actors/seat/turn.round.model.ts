/**
 * The model call of a phase round, journaled: abort and budget first, then the call, then its answer and
 * spend record written together, the spend counted in the budget at once; the spend of an answer that failed
 * after it began journaled before it is stored. A resumed phase sends again the spend its journal ends with.
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
import type { FailReason } from './seat.machine.js';
import type { RoundAnswer } from './turn.journal.records.js';
import { endingCall } from './turn.live.js';
import type { RoundScope } from './turn.round.js';
import { stopped } from './turn.tools.js';

/**
 * The model's answer, or why the phase fails instead; `unfinished`: the spend of the call's answers that
 * began and failed (the one that failed the phase, or those the chain fell back from), which the phase's
 * tokens count.
 */
export type Asked = (
  | { readonly result: RoundAnswer }
  | { readonly failure: { readonly reason: FailReason; readonly message: string; readonly cause?: unknown } }
) & { readonly unfinished?: readonly SpendRecord[] };

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
        // The live view names the provider called now, not the chain's first, once the call falls back.
        onAttempt: ({ provider, model }) => scope.live.provider(provider, model),
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
    const spent = unfinished.map((call) => spendOf(scope, call));
    await journalFailedAnswers(scope, round, spent);
    const failed = (reason: FailReason, message: string, cause: unknown): Asked => ({
      ...failure(reason, message, cause),
      unfinished: spent,
    });
    if (error instanceof LlmAbortedError || signal.aborted) return failed('aborted', stopped(signal), error);
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
      return failed('provider', error.message, error);
    }
    // A provider's own error reaches here only after its output streamed (no fallback can follow): a
    // provider failure on record as one, waiting would not cure it.
    if (error instanceof LlmError) {
      await endingCall(scope.live, () => publishCutAnswer(scope, request.chain, error));
      return failed('provider', error.message, error);
    }
    return failed('error', error instanceof Error ? error.message : String(error), error);
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
  return { result, unfinished: failed };
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
