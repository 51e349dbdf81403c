/**
 * One tool call of a phase, as the turn engine runs it: checked against the tools the phase offers, routed,
 * and abandoned the moment the turn's signal fires. The router is given the signal too, so an MCP server is
 * told (`notifications/cancelled`); whatever the call yields after the cut is dropped, never recorded.
 */
import type { Payloads, ToolEntry } from '../../schema/index.js';
import { refusedArguments } from '../toolservers/index.js';
import type { LlmToolCall } from './providers/index.js';
import type { TurnDeps } from './turn.deps.js';

type ToolExecution = (typeof Payloads.ToolExecution)['_output'];

const notAnObject = 'the arguments were not a JSON object; call again with an object';

/**
 * A call refused for its arguments (not a JSON object, or not what the tool's schema takes): nothing ran, so a
 * per-turn cap does not count it. Read from the row, so a resumed turn's journal reads the same.
 */
export const ranNothing = (execution: ToolExecution): boolean =>
  typeof execution.error === 'string' &&
  (execution.error === notAnObject || refusedArguments(execution.name, execution.error));

export interface ToolRun {
  /** What the model reads back (the tool message). */
  readonly output: string;
  readonly isError: boolean;
  /** Set when the call went through and the tool delivers the turn's work (`delivers`). */
  readonly delivered: boolean;
  /** The `tool_executions` row. */
  readonly execution: ToolExecution;
}

/**
 * Why the turn was stopped: the reason the seat aborted it with (a scheduled deadline's message, a cut's
 * Error), else an operator's stop.
 */
export const stopped = (signal: AbortSignal): string => {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  return reason instanceof Error ? reason.message : 'the turn was stopped';
};
const resultText = (content: ReadonlyArray<{ text: string }>): string => content.map((c) => c.text).join('');
export const clip = (s: string, n = 4000): string => (s.length > n ? `${s.slice(0, n)}…` : s);

const abandoned = Symbol('abandoned');
/** The tool server of an MCP entry (`mcp:<server>`), null for a builtin. */
const serverOf = (entry: ToolEntry): string | null =>
  entry.source.startsWith('mcp:') ? entry.source.slice('mcp:'.length) : null;

/** `work`'s outcome, or `abandoned` as soon as `signal` fires (a later outcome of `work` is ignored). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof abandoned> {
  if (signal.aborted) return Promise.resolve(abandoned);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(abandoned);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export interface ToolCallContext {
  /** The call's place in the turn (`<turn id>/<phase>.<iteration>/<round>.<index>`): builtins derive ids from it. */
  readonly call_id: string;
  readonly seat: string;
  readonly agent_id: string;
  readonly turn_id: string;
  readonly trace_id: string;
  /** The tool call's span, when spans are exported: a sandbox run's spans nest under it. */
  readonly parent_span_id?: string | null;
  readonly signal: AbortSignal;
  /** The calls of this tool its turn made before this one, bar those refused for their arguments. */
  readonly calls_before: number;
}

/** Where a call ran: its tool's source, or `unknown` for a name the phase does not offer (nothing ran). */
export const originOf = (entry: ToolEntry | undefined): string => entry?.source ?? 'unknown';

/**
 * Runs `call` (with `entry`, the offered tool of that name, if any). Resolves with `cancelled` when the
 * turn's signal fired before the tool answered: the row then says so and carries no result.
 */
export async function runToolCall(
  deps: TurnDeps,
  ctx: ToolCallContext,
  call: LlmToolCall,
  entry: ToolEntry | undefined,
): Promise<ToolRun & { readonly cancelled: boolean }> {
  const at = deps.now();
  const row = (
    output: string,
    isError: boolean,
    origin: string,
    server: string | null,
    error: string | null = isError ? clip(output, 500) : null,
  ): ToolExecution => ({
    name: call.name,
    call_id: call.id,
    arguments: call.arguments,
    result: clip(output),
    error,
    started_at: at.toISOString(),
    duration_ms: Math.max(0, deps.now().getTime() - at.getTime()),
    origin,
    server,
  });
  const answer = (output: string, isError: boolean, origin: string, server: string | null) => ({
    output,
    isError,
    delivered: false,
    cancelled: false,
    execution: row(output, isError, origin, server),
  });
  const origin = originOf(entry);
  if (!call.arguments_valid) return answer(notAnObject, true, origin, null);
  if (!entry) return answer(`no tool named ${call.name} is offered in this phase`, true, origin, null);

  const routed = await untilAborted(
    deps.tools.call(
      {
        seat: ctx.seat,
        agent_id: ctx.agent_id,
        turn_id: ctx.turn_id,
        trace: { trace_id: ctx.trace_id, parent_span_id: ctx.parent_span_id ?? null },
        signal: ctx.signal,
        call_id: ctx.call_id,
        calls_before: ctx.calls_before,
      },
      { name: call.name, arguments: call.arguments },
    ),
    ctx.signal,
  );
  // Cut while the tool ran: whatever it answered, or will, is not the turn's any more.
  if (routed === abandoned || ctx.signal.aborted) {
    const reason = `cancelled: ${stopped(ctx.signal)}`;
    return {
      output: reason,
      isError: true,
      delivered: false,
      cancelled: true,
      execution: row('', true, origin, serverOf(entry), clip(reason, 500)),
    };
  }
  const output = resultText(routed.content);
  return {
    output,
    isError: routed.is_error,
    delivered: !routed.is_error && Boolean(entry.delivers),
    cancelled: false,
    execution: row(output, routed.is_error, routed.source ?? origin, routed.server),
  };
}

/**
 * Whether a call in flight when its turn was cut may simply run again on resume: a builtin (idempotent by
 * call id), or an MCP tool its server declares idempotent (`idempotentHint`).
 */
export const retriable = (entry: ToolEntry | undefined): boolean =>
  entry !== undefined && (entry.source === 'builtin' || entry.annotations['idempotentHint'] === true);

/** What the model reads for a call that was in flight at a cut and may not run again blindly. */
export const unknownOutcomeText = (name: string): string =>
  `outcome unknown — check before retrying: the call to ${name} was in flight when the turn was cut ` +
  '(a restart, a crash or a lost lease); it may or may not have taken effect';

/** The run of a call in flight at a cut that is not retried: the model is told its outcome is unknown. */
export function unknownOutcome(
  deps: Pick<TurnDeps, 'now'>,
  call: LlmToolCall,
  entry: ToolEntry | undefined,
): ToolRun & { readonly cancelled: boolean } {
  const output = unknownOutcomeText(call.name);
  return {
    output,
    isError: true,
    delivered: false,
    cancelled: false,
    execution: {
      name: call.name,
      call_id: call.id,
      arguments: call.arguments,
      result: '',
      error: output,
      started_at: deps.now().toISOString(),
      duration_ms: 0,
      origin: originOf(entry),
      server: entry ? serverOf(entry) : null,
    },
  };
}
