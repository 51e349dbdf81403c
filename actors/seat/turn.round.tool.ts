/**
 * One tool call of a phase round, journaled: its result after it runs; its start before, unless it may
 * simply run again. A tool call an earlier run started but did not finish is not repeated blindly: a
 * retriable tool runs again, any other is answered "outcome unknown". A retriable tool's result is written
 * behind (`RoundScope.results`).
 */
import { noopTracer, type ToolEntry } from '../../schema/index.js';
import type { PhaseRecord } from './turn.journal.js';
import type { RoundAnswer } from './turn.journal.records.js';
import type { RoundScope } from './turn.round.js';
import { originOf, retriable, runToolCall, unknownOutcome, type ToolRun } from './turn.tools.js';

/**
 * How much of a tool's output the journal keeps: a bus message stays well under a server's payload limit
 * (NATS: 1 MiB by default). A resumed turn replays an output longer than this clipped.
 */
export const JOURNALED_OUTPUT_CHARS = 256 * 1024;
const journaled = (output: string): string =>
  output.length > JOURNALED_OUTPUT_CHARS
    ? `${output.slice(0, JOURNALED_OUTPUT_CHARS)}… [clipped: the full output was ${output.length} characters]`
    : output;

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
