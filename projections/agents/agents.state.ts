/** The agents read model's state and its row pieces (spec "Agent row", `llm_history`). */
import type { Payloads } from '../../schema/index.js';
import type { z } from 'zod';

export type HistoryRow = z.infer<typeof Payloads.PhaseRecord>;
export type Paused = z.infer<typeof Payloads.Paused>;

/** A question the seat waits on, as the seat's own log keeps it (ops/turn-engine.md "Needs"). */
export interface OpenQuestion {
  readonly id: string;
  readonly question: string;
  readonly asked_at: string;
}
type ToolExecution = z.infer<typeof Payloads.ToolExecution>;
type Round = z.infer<typeof Payloads.Round>;
type RunningCall = z.infer<typeof Payloads.RunningCall>;

/** The call on screen: in flight, just finished, or (rule 4) died and stamped `failed`. */
export interface LiveCall {
  turn_id: string;
  phase: string;
  iteration: number;
  model: string;
  response: string;
  tool_executions: ToolExecution[];
  rounds: Round[];
  in_progress: boolean;
  round_narration: string | null;
  partial_round: string | null;
  round_started_at: string | null;
  running_call: RunningCall | null;
  max_rounds: number | null;
  /** The round in flight; -1 = the opening round. */
  round_num: number | null;
  started_at: string;
  failed: boolean;
}

export interface TurnNow {
  turn_id: string;
  started_at: string;
  phase: string;
  iteration: number;
  trigger: string | null;
  work_item: string | null;
}

export interface LastTurn {
  turn_id: string;
  started_at: string;
  ended_at: string;
  duration_ms: number;
  phases: string[];
  total_tokens: number;
  failed: boolean;
  error: string | null;
  review: { reviewed: boolean; passed_first: boolean | null; attempts: number } | null;
}

export interface LastError {
  at: string;
  message: string;
  /** The event type that recorded it (`agent_phase_completed`, `turn.guard_breach`, ...). */
  source: string;
  kind: string | null;
  turn_id: string | null;
  phase: string | null;
}

/**
 * Why the seat reads `stopped` for a cause the engine reported: cleared by later progress, and no longer in
 * force once its own condition passed (agents.rows.ts `inForce`), so the row follows the cause.
 */
export interface StopCause {
  since: string;
  detail: string;
  /** The instant the cause ends by itself: a provider's `retry_at`, a budget's window end. */
  until?: string | null;
  /** A budget stop: the scope that refused and what it had used (a cap raised past it frees the seat). */
  budget?: { scope: 'org' | 'seat'; used: number };
  /** The turn that waits for the cause to end (a provider's `retry_at`): the seat is not working it meanwhile. */
  turn_id?: string | null;
  /**
   * `needs`: the open questions' ids; the wait lasts until a record closes the last. Absent on a wait an
   * earlier release's completion reported (no ids): that one ends when the seat's next phase starts.
   */
  ids?: string[];
}

/** A completed turn, kept for `/agents/activity`. */
export interface TurnSummary {
  handle: string;
  turn_id: string;
  ended_ms: number;
  started_at: string;
  ended_at: string;
  duration_ms: number;
  failed: boolean;
  reviewed: boolean;
  passed_first: boolean | null;
}

/** One seat's runtime facts. Each `*Ms` is the instant of the event that last set its field (rule 3). */
export interface SeatRuntime {
  live_call: LiveCall | null;
  liveMs: number | null;
  /** The call a pause with `stop_running` cut short: progress on it after the resume brings it back. */
  cut: { readonly turn_id: string; readonly phase: string; readonly iteration: number } | null;
  /**
   * The calls (phase null: whole turns) whose ending or cutting record was folded at instant `liveMs`: a frame
   * or start of one at that very instant is no newer than its ending (agents.ties.ts).
   */
  liveEnded: ReadonlyArray<{
    readonly turn_id: string;
    readonly phase: string | null;
    readonly iteration: number;
  }>;
  turn: TurnNow | null;
  last_turn: LastTurn | null;
  turnMs: number | null;
  paused: Paused | null;
  pausedMs: number | null;
  last_error: LastError | null;
  errorMs: number | null;
  provider: StopCause | null;
  providerMs: number | null;
  budget: StopCause | null;
  budgetMs: number | null;
  needs: StopCause | null;
  needsMs: number | null;
  /** Newest first, at most `historyCap`; each with the instant it is ordered by. */
  history: Array<{ row: HistoryRow; ms: number | null }>;
}

export interface AgentsState {
  readonly seats: Map<string, SeatRuntime>;
  /** Completed turns in arrival order, pruned by age (see agents.activity.ts). */
  readonly turns: TurnSummary[];
  /** The same turns by `turnKey` (a request looks a turn up instead of indexing the whole log). */
  readonly turnsByKey: Map<string, TurnSummary>;
  /** Handles changed since the last `takeDirty` (for the snapshot's merge overlays). */
  readonly dirty: Set<string>;
}

export const historyCap = 50;

export function emptyAgentsState(): AgentsState {
  return { seats: new Map(), turns: [], turnsByKey: new Map(), dirty: new Set() };
}

/** A seat no event has concerned yet. */
export function emptyRuntime(): SeatRuntime {
  return {
    live_call: null,
    liveMs: null,
    cut: null,
    liveEnded: [],
    turn: null,
    last_turn: null,
    turnMs: null,
    paused: null,
    pausedMs: null,
    last_error: null,
    errorMs: null,
    provider: null,
    providerMs: null,
    budget: null,
    budgetMs: null,
    needs: null,
    needsMs: null,
    history: [],
  };
}

export function runtimeOf(state: AgentsState, handle: string): SeatRuntime {
  let seat = state.seats.get(handle);
  if (!seat) {
    seat = emptyRuntime();
    state.seats.set(handle, seat);
  }
  return seat;
}
