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
import { noopTracer, type TraceSpan } from '../../schema/index.js';
import type { TurnDeps } from './turn.deps.js';
import { noJournal } from './turn.journal.js';
import { PhaseRun } from './turn.phase.run.js';
import { PhaseDeferred, PhaseFailure, type PhaseInput, type PhaseResult } from './turn.phase.types.js';

export { PhaseDeferred, PhaseFailure } from './turn.phase.types.js';

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
  const journal = input.journal ?? noJournal;
  const prior = journal.prior;
  // Finished or failed before the cut: its record stands, nothing runs or is published again.
  if (prior?.completed) {
    input.calls?.finished(prior);
    const { outcome, tokens, picked, tools, skills } = prior.completed;
    return { outcome, tokens, tools, skills: skills ?? [], ...(picked ? { picked } : {}) };
  }
  if (prior?.failed) throw new PhaseFailure(prior.failed.reason, prior.failed.error, prior.failed.tokens);
  return new PhaseRun(deps, input, journal, picked, span).run();
}
