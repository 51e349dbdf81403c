/**
 * The seat machine's types and its pure turn helpers: what a wake, a turn and a phase outcome are,
 * the events the host sends, and how an outcome folds into the turn. Imports only schema.
 */
import type { NeedsEvent, Payloads, SeatNeed } from '../../schema/index.js';
import type { TurnLimits } from './seat.limits.js';

export type Paused = (typeof Payloads.Paused)['_output'];
export type TurnCompletedPayload = (typeof Payloads.AgentTurnCompleted)['_output'];
export type PhaseName = 'plan' | 'execute' | 'review';
/** `plan`: execute then review; `direct`: skip review when a delivering tool was called; `skip`: nothing asked. */
export type PlanDecision = 'plan' | 'direct' | 'skip';
export type FailReason = 'provider' | 'budget' | 'aborted' | 'error';

/** What woke the turn (an inbox message, reduced to what the prompts need). */
export interface Wake {
  readonly id: string;
  readonly kind: string;
  readonly source: string;
  readonly summary: string;
  readonly trace_id: string;
  readonly payload: Record<string, unknown>;
}

/** The native work item a wake is about (an assignment's, a comment's), by key; null for any other wake. */
export function workItemOf(wake: Wake): string | null {
  const item = wake.payload['item'];
  if (item === null || typeof item !== 'object') return null;
  const key = (item as { readonly key?: unknown }).key;
  return typeof key === 'string' && key !== '' ? key : null;
}

export type PhaseOutcome =
  | { readonly phase: 'plan'; readonly decision: PlanDecision; readonly plan: string }
  | { readonly phase: 'execute'; readonly response: string; readonly delivered: boolean }
  | { readonly phase: 'review'; readonly verdict: 'done' | 'self_iterate'; readonly notes: string };

export interface Turn {
  readonly turn_id: string;
  readonly wake: Wake;
  readonly started_at: string;
  readonly limits: TurnLimits;
  readonly iteration: number;
  readonly phases: PhaseName[];
  readonly decision: PlanDecision | null;
  readonly plan: string | null;
  readonly artifact: string | null;
  readonly delivered: boolean;
  readonly notes: string | null;
  /** The artifact the last `self_iterate` review sent back (the stall guard compares against it). */
  readonly iterated: string | null;
  readonly reviews: number;
  readonly passed_first: boolean | null;
  readonly total_tokens: number;
  readonly failure: { readonly reason: FailReason; readonly error: string } | null;
}

export interface SeatContext {
  readonly handle: string;
  readonly limits: TurnLimits;
  readonly paused: Paused | null;
  readonly turn: Turn | null;
  /** The questions the seat waits on (event-sourced: its log's records, rebuilt on start). */
  readonly needs: readonly SeatNeed[];
}

/**
 * A scheduled turn ran out of time (`timeout_seconds`): the `turn.guard_breach` payload to publish
 * (kind `scheduled_timeout`, built by the host from the wake) and the error the turn fails with.
 */
export interface DeadlineBreach {
  readonly breach: { readonly kind: string; readonly turn_id: string | null } & Readonly<
    Record<string, unknown>
  >;
  readonly error: string;
}

export type SeatEvent =
  /**
   * `expired`: the wake's deadline had passed when it was taken; the turn fails without a phase.
   * `limits`: a resumed turn's, as it started with them (it keeps them, as a running turn does).
   */
  | {
      type: 'seat.wake';
      wake: Wake;
      turn_id: string;
      at: string;
      expired?: DeadlineBreach;
      limits?: TurnLimits;
    }
  /** The running scheduled turn reached its deadline. */
  | { type: 'seat.deadline'; turn_id: string; at: string; expired: DeadlineBreach }
  | { type: 'seat.phase.done'; turn_id: string; tokens: number; at: string; outcome: PhaseOutcome }
  | {
      type: 'seat.phase.failed';
      turn_id: string;
      phase: PhaseName;
      tokens: number;
      at: string;
      reason: FailReason;
      error: string;
    }
  /**
   * The model provider is unavailable until `retry_at` (keys cooling): the turn waits for it in the inbox
   * instead of failing, and resumes from its journal then.
   */
  | { type: 'seat.turn.deferred'; turn_id: string; retry_at: string }
  | { type: 'seat.pause'; paused: Paused }
  | { type: 'seat.resume'; by: string; at: string; reason?: string }
  | { type: 'seat.settings'; limits: TurnLimits }
  | NeedsEvent;

/** What the host needs to run one phase. */
export interface PhaseRequest {
  readonly turn: Turn;
  readonly phase: PhaseName;
}

export type Done = Extract<SeatEvent, { type: 'seat.phase.done' }>;
export const outcomeOf = (event: SeatEvent): PhaseOutcome | null =>
  event.type === 'seat.phase.done' ? event.outcome : null;
const ms = (iso: string): number => Date.parse(iso);

/** The turn after a phase: outcome folded in, tokens added. */
export function fold(turn: Turn, event: Done): Turn {
  const o = event.outcome;
  const base = { ...turn, total_tokens: turn.total_tokens + event.tokens };
  if (o.phase === 'plan') return { ...base, decision: o.decision, plan: o.plan };
  if (o.phase === 'execute') return { ...base, artifact: o.response, delivered: o.delivered };
  const passedFirst = turn.reviews === 0 ? o.verdict === 'done' : turn.passed_first;
  return { ...base, reviews: turn.reviews + 1, passed_first: passedFirst, notes: o.notes };
}

export function completed(turn: Turn, at: string): TurnCompletedPayload {
  return {
    turn_id: turn.turn_id,
    started_at: turn.started_at,
    ended_at: at,
    duration_ms: Math.max(0, ms(at) - ms(turn.started_at)),
    phases: turn.phases,
    total_tokens: turn.total_tokens,
    failed: turn.failure !== null,
    error: turn.failure?.error ?? null,
    trigger: turn.wake.kind,
    work_item: workItemOf(turn.wake),
    review: { reviewed: turn.reviews > 0, passed_first: turn.passed_first, attempts: turn.reviews },
  };
}
