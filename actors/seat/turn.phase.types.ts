/** What a phase of a turn takes, what it returns, and the two ways it ends without its outcome. */
import type { TraceSpan } from '../../schema/index.js';
import type { FailReason, PhaseName, PhaseOutcome, Turn } from './seat.machine.js';
import type { Charter, SeatProfile } from './seat.profile.js';
import type { TurnCalls } from './turn.calls.js';
import type { PhaseJournal } from './turn.journal.js';

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
  /** The turn's tool calls so far, shared by its phases (default: this phase's alone). */
  readonly calls?: TurnCalls;
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
