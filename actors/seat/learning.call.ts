/**
 * What the learning calls after a turn share (counterparty profiles, reflection, skill synthesis): their
 * dependencies, and one auxiliary model call on the seat's own provider chain with its spend recorded under
 * the seat as the named worker's.
 */
import type { Logger } from 'pino';
import type { Bus } from '../../bus/index.js';
import type { LlmRequest } from './providers/index.js';
import type { Budget } from './budget.js';
import type { SeatProfile } from './seat.profile.js';
import { recordAuxiliarySpend } from './spend.js';
import type { TurnDeps } from './turn.deps.js';

export interface LearningDeps {
  readonly bus: Bus;
  readonly node: string;
  readonly llm: TurnDeps['llm'];
  readonly budget: Budget;
  readonly logger: Logger;
  readonly now: () => Date;
  /** An event about the seat (fenced by its lease), stored under the record's id. */
  publish(type: string, payload: Record<string, unknown>, id: string, trace: string): Promise<void>;
}

export interface AuxiliaryCall {
  /** The worker the spend is recorded under (`reflector`, `skill_synthesizer`, ...). */
  readonly worker: string;
  readonly seat: SeatProfile;
  readonly request: LlmRequest;
  readonly trace_id: string;
  /** The spend record's id: derived from the work, so a repeat counts once. */
  readonly spendId: string;
  readonly turn_id: string | null;
  /** The org's and the seat's token caps, checked before the call. */
  readonly caps: { readonly org: number; readonly seat: number };
}

/**
 * Checks the budget, calls the seat's model once, records the spend, and resolves with the answer's text;
 * null when the budget refuses the call (logged as `auxiliary_call_skipped` with the worker and the cap).
 */
export async function auxiliaryCall(
  deps: LearningDeps,
  call: AuxiliaryCall,
  log: Logger,
): Promise<string | null> {
  const { seat } = call;
  const refused = await deps.budget.check(seat.handle, call.caps);
  if (refused) {
    const reason = `${refused.scope}_budget`;
    log.info({ event: 'auxiliary_call_skipped', worker: call.worker, reason }, 'auxiliary_call_skipped');
    return null;
  }
  const chain = deps.llm.resolve(seat.llm ? { llm: seat.llm } : seat.handle);
  const trace = { trace_id: call.trace_id, parent_span_id: null };
  const result = await deps.llm.call(chain, call.request, { seat: seat.handle, trace }).result();
  await recordAuxiliarySpend(
    { bus: deps.bus, node: deps.node, budget: deps.budget },
    {
      worker: call.worker,
      provider: result.provider,
      model: result.model,
      ...result.usage,
      seat: { handle: seat.handle, agent_id: seat.agent_id, role: seat.name },
      turn_id: call.turn_id,
      trace,
      id: call.spendId,
      at: deps.now(),
    },
  );
  return result.text;
}
