/**
 * The agents read model: per seat the live call, the turn in flight and the last one, pause, stop causes,
 * the last error and `llm_history`. Every change is gated on the event's instant (rule 3), so a late or
 * replayed older event never overwrites newer state; history rows are deduplicated by (turn, phase, pass).
 */
import { Payloads, type EventRecord } from '../../schema/index.js';
import {
  runtimeOf,
  type AgentsState,
  type HistoryRow,
  type LiveCall,
  type SeatRuntime,
} from './agents.state.js';
import { handleOf } from './agents.seed.js';
import { logTurn } from './agents.turn-log.js';
import { instantMs, isNotOlder } from '../time/instants.js';
import { addHistory, sandboxRow, shownText } from './agents.history.js';
import { endedAt, endLive, liveAt, newerCallShown, sameCall } from './agents.ties.js';
import { clearCause, cutLiveCall, needsClosed, setCause, setError, setNeeds } from './agents.causes.js';

type InFlight = NonNullable<Payloads.AgentPhaseCompleted['in_flight']>;

export const agentEventTypes = [
  'agent_phase_started',
  'agent_turn_progress',
  'agent_phase_completed',
  'agent_turn_completed',
  'llm_unavailable',
  'budget_exhausted',
  'turn.guard_breach',
  'agent_paused',
  'agent_resumed',
  'human_answered',
  'question_withdrawn',
  'needs_cleared',
  'sandbox_run_completed',
  'sandbox_run_failed',
  'sandbox_run_cancelled',
] as const;

/** A live call just begun: nothing answered yet, no round under way. */
function newLiveCall(
  d: Pick<LiveCall, 'turn_id' | 'phase' | 'iteration'>,
  model: string,
  startedAt: string,
): LiveCall {
  return {
    turn_id: d.turn_id,
    phase: d.phase,
    iteration: d.iteration,
    model,
    response: '',
    tool_executions: [],
    rounds: [],
    in_progress: true,
    round_narration: null,
    partial_round: null,
    round_started_at: null,
    running_call: null,
    max_rounds: null,
    round_num: null,
    started_at: startedAt,
    failed: false,
  };
}

/** A checked live-view frame: the live call it shows, unless it is older news than what is shown. */
function foldProgress(
  seat: SeatRuntime,
  ms: number | null,
  e: EventRecord,
  d: Payloads.AgentTurnProgress,
): boolean {
  if (!isNotOlder(ms, seat.liveMs) || endedAt(seat, ms, d)) return false;
  const call = seat.live_call;
  const same =
    call !== null && call.turn_id === d.turn_id && call.phase === d.phase && call.iteration === d.iteration;
  // Progress never revives a finished call: it is older news than the completion that ended it. A call a
  // pause cut is not finished: the resumed turn carries it on.
  const cut = seat.cut;
  const resumed =
    cut !== null && cut.turn_id === d.turn_id && cut.phase === d.phase && cut.iteration === d.iteration;
  if (same && !call.in_progress && !resumed) return false;
  seat.cut = null;
  const base: LiveCall = same ? { ...call, in_progress: true } : newLiveCall(d, d.model ?? '', e.timestamp);
  seat.live_call = {
    ...base,
    model: d.model ?? base.model,
    response: shownText(d.response),
    tool_executions: d.tool_calls,
    rounds: d.rounds ?? base.rounds,
    round_narration: d.round_narration ?? base.round_narration,
    partial_round: d.partial_round === undefined ? base.partial_round : d.partial_round,
    round_started_at: d.round_started_at === undefined ? base.round_started_at : d.round_started_at,
    running_call: d.running_call === undefined ? base.running_call : d.running_call,
    max_rounds: d.max_rounds,
    round_num: d.round_num,
  };
  liveAt(seat, ms);
  return true;
}

/** The phase's call ended: the live row shows its outcome, no longer in progress. */
function endCall(seat: SeatRuntime, ms: number | null, row: HistoryRow, inFlight?: InFlight): void {
  const prior = sameCall(seat.live_call, row) ? seat.live_call : null;
  // A failed phase's record says what the call in flight was, so a replay (no frames) shows what was live.
  const died = row.failed ? inFlight : undefined;
  seat.cut = null;
  seat.live_call = {
    turn_id: row.turn_id,
    phase: row.phase,
    iteration: row.iteration,
    model: row.model,
    // Rule 4: a failed phase keeps what was on screen; the record's own text wins when it has one.
    response: row.response !== '' || !prior ? shownText(row.response) : prior.response,
    tool_executions: row.tool_executions.length > 0 || !prior ? row.tool_executions : prior.tool_executions,
    rounds: row.rounds.length > 0 || !prior ? row.rounds : prior.rounds,
    in_progress: false,
    round_narration: row.round_narration ?? prior?.round_narration ?? null,
    partial_round: row.partial_round ?? prior?.partial_round ?? null,
    round_started_at: died ? died.round_started_at : (prior?.round_started_at ?? null),
    running_call: died ? died.running_call : row.failed ? (prior?.running_call ?? null) : null,
    max_rounds: row.max_rounds ?? prior?.max_rounds ?? null,
    round_num: died ? died.round_num : (prior?.round_num ?? null),
    started_at: row.started_at,
    failed: row.failed,
  };
  endLive(seat, ms, row);
}

type Handler = (seat: SeatRuntime, ms: number | null, event: EventRecord, state: AgentsState) => boolean;

const handlers: Record<(typeof agentEventTypes)[number], Handler> = {
  agent_phase_started: (seat, ms, e) => {
    const p = Payloads.AgentPhaseStarted.safeParse(e.payload);
    if (!p.success) return false;
    const d = p.data;
    // The live call and the turn are gated apart: a node folds its own seats' frames as they are made, so the
    // phase's first frame may be folded before this record, and is newer news of the call, not of the turn.
    const live = isNotOlder(ms, seat.liveMs) && !endedAt(seat, ms, d);
    const turn = isNotOlder(ms, seat.turnMs);
    if (!live && !turn) return false;
    if (live) {
      const shown = seat.live_call;
      // A frame of this call at this very instant came after the start: it stays, dated by the start.
      seat.live_call =
        ms === seat.liveMs && shown?.in_progress === true && sameCall(shown, d)
          ? { ...shown, started_at: d.started_at }
          : {
              ...newLiveCall(d, d.model, d.started_at),
              round_started_at: d.started_at,
              max_rounds: d.max_rounds ?? null,
              round_num: -1,
            };
      liveAt(seat, ms);
    }
    if (turn) {
      const sameTurn = seat.turn?.turn_id === d.turn_id;
      seat.turn = {
        turn_id: d.turn_id,
        started_at: sameTurn && seat.turn ? seat.turn.started_at : (d.turn_started_at ?? d.started_at),
        phase: d.phase,
        iteration: d.iteration,
        trigger: d.trigger ?? (sameTurn ? (seat.turn?.trigger ?? null) : null),
        work_item: d.work_item ?? null,
      };
      seat.turnMs = ms;
    }
    // A phase that starts proves the budget let it. A wait on people lasts until its questions close
    // (answered, withdrawn, cleared), whatever turns run meanwhile; only a wait an earlier release
    // reported without ids ends here, as it did then.
    clearCause(seat, 'budget', ms);
    if (seat.needs && !seat.needs.ids) clearCause(seat, 'needs', ms);
    return true;
  },

  agent_turn_progress: (seat, ms, e) => {
    const p = Payloads.AgentTurnProgress.safeParse(e.payload);
    return p.success && foldProgress(seat, ms, e, p.data);
  },

  agent_phase_completed: (seat, ms, e) => {
    const p = Payloads.AgentPhaseCompleted.safeParse(e.payload);
    if (!p.success) return false;
    const {
      system_prompt: _s,
      input_tokens: _i,
      output_tokens: _o,
      timeline: _t,
      error,
      in_flight,
      ...row
    } = p.data;
    addHistory(seat, row);
    if (!isNotOlder(ms, seat.liveMs)) return true;
    if (newerCallShown(seat, ms, row)) endLive(seat, ms, row);
    else endCall(seat, ms, row, in_flight);
    if (row.failed) {
      setError(seat, ms, {
        at: e.timestamp,
        message: error ?? 'the phase failed',
        source: e.type,
        kind: null,
        turn_id: row.turn_id,
        phase: row.phase,
      });
    } else clearCause(seat, 'provider', ms);
    return true;
  },

  agent_turn_completed: (seat, ms, e, state) => {
    const p = Payloads.AgentTurnCompleted.safeParse(e.payload);
    if (!p.success) return false;
    const d = p.data;
    logTurn(state, e.agent_id as string, d);
    if (!isNotOlder(ms, seat.turnMs)) return true;
    seat.turn = null;
    seat.last_turn = {
      turn_id: d.turn_id,
      started_at: d.started_at,
      ended_at: d.ended_at,
      duration_ms: d.duration_ms,
      phases: d.phases,
      total_tokens: d.total_tokens,
      failed: d.failed,
      error: d.error ?? null,
      review: d.review ?? null,
    };
    seat.turnMs = ms;
    // Between turns there is no live call, except a failed one, which stays on screen (rule 4), and the next
    // turn's, when it already shows at this instant (agents.ties.ts).
    if (isNotOlder(ms, seat.liveMs)) {
      const ended = { turn_id: d.turn_id, phase: null, iteration: 0 };
      if (!(seat.live_call?.failed ?? false) && !newerCallShown(seat, ms, ended)) seat.live_call = null;
      endLive(seat, ms, ended);
    }
    if (d.failed && d.error) {
      // The turn's cause replaces its phase's, keeping the phase it failed in (rule 4).
      const call = seat.live_call;
      const prior = seat.last_error;
      setError(seat, ms, {
        at: e.timestamp,
        message: d.error,
        source: e.type,
        kind: null,
        turn_id: d.turn_id,
        phase:
          call?.turn_id === d.turn_id && call.failed
            ? call.phase
            : prior?.turn_id === d.turn_id
              ? prior.phase
              : null,
      });
    }
    // The completion states the whole wait: the questions open as the turn ended, or none.
    if (d.needs) setNeeds(seat, ms, d.needs, d.ended_at);
    else clearCause(seat, 'needs', ms);
    return true;
  },

  human_answered: needsClosed,
  question_withdrawn: needsClosed,
  needs_cleared: needsClosed,

  llm_unavailable: (seat, ms, e) => {
    const p = Payloads.LlmUnavailable.safeParse(e.payload);
    if (!p.success) return false;
    // The registry publishes the chain and each attempt; the last attempt is why the chain gave up.
    const last = p.data.attempts?.at(-1);
    const provider = last?.provider ?? p.data.provider ?? p.data.chain?.at(-1) ?? 'provider';
    const detail = `${provider}: ${last?.reason ?? p.data.reason ?? 'unavailable'}`;
    const changed = setCause(seat, 'provider', ms, {
      since: e.timestamp,
      detail,
      until: p.data.retry_at ?? null,
      // With a retry_at the turn is not failed: it waits in the inbox until then (ops/turn-engine.md).
      turn_id: p.data.retry_at ? (p.data.turn_id ?? null) : null,
    });
    // No model call runs while the turn waits for retry_at: its live row stops reading as one.
    if (p.data.retry_at && p.data.turn_id) cutLiveCall(seat, ms, p.data.turn_id);
    setError(seat, ms, {
      at: e.timestamp,
      message: detail,
      source: e.type,
      kind: null,
      turn_id: p.data.turn_id ?? null,
      phase: p.data.phase ?? null,
    });
    return changed;
  },

  budget_exhausted: (seat, ms, e) => {
    const p = Payloads.BudgetExhausted.safeParse(e.payload);
    if (!p.success) return false;
    const detail = `${p.data.scope} budget: ${p.data.used} of ${p.data.cap} tokens used`;
    return setCause(seat, 'budget', ms, {
      since: e.timestamp,
      detail,
      until: p.data.window_end,
      budget: { scope: p.data.scope, used: p.data.used },
    });
  },

  'turn.guard_breach': (seat, ms, e) => {
    const p = Payloads.TurnGuardBreach.safeParse(e.payload);
    if (!p.success) return false;
    const timeout = p.data['timeout_seconds'];
    const message =
      p.data.detail ??
      (p.data.kind === 'scheduled_timeout' && typeof timeout === 'number'
        ? `the scheduled turn outlived its ${timeout} s timeout`
        : `guard ${p.data.kind} fired`);
    return setError(seat, ms, {
      at: e.timestamp,
      message,
      source: e.type,
      kind: p.data.kind,
      turn_id: p.data.turn_id,
      phase: p.data.phase ?? null,
    });
  },

  agent_paused: (seat, ms, e) => {
    const p = Payloads.AgentPaused.safeParse(e.payload);
    if (!p.success || !isNotOlder(ms, seat.pausedMs)) return false;
    seat.paused = p.data.paused;
    seat.pausedMs = ms;
    // `stop_running` cuts the call in flight at once: it no longer reads as running while the seat waits.
    if (p.data.paused.stop_running) cutLiveCall(seat, ms, null);
    return true;
  },

  agent_resumed: (seat, ms, e) => {
    const p = Payloads.AgentResumed.safeParse(e.payload);
    if (!p.success || !isNotOlder(ms, seat.pausedMs)) return false;
    seat.paused = null;
    seat.pausedMs = ms;
    return true;
  },

  sandbox_run_completed: (seat, _ms, e) => sandboxRow(seat, e),
  sandbox_run_failed: (seat, _ms, e) => sandboxRow(seat, e),
  sandbox_run_cancelled: (seat, _ms, e) => sandboxRow(seat, e),
};

/**
 * A live-view frame of this node's own seats, folded as it is made: typed already, so neither the event
 * nor its payload is checked again (the frame's copy on the bus is skipped).
 */
export function applyAgentProgress(
  state: AgentsState,
  e: EventRecord,
  payload: Payloads.AgentTurnProgress,
): AgentsState {
  const handle = handleOf(e);
  if (handle === null) return state;
  if (foldProgress(runtimeOf(state, handle), instantMs(e.timestamp), e, payload)) state.dirty.add(handle);
  return state;
}

export function applyAgentEvent(state: AgentsState, e: EventRecord): AgentsState {
  const handler = (handlers as Record<string, Handler | undefined>)[e.type];
  const handle = handleOf(e);
  if (!handler || handle === null) return state;
  const record = handle === e.agent_id ? e : { ...e, agent_id: handle };
  if (handler(runtimeOf(state, handle), instantMs(e.timestamp), record, state)) state.dirty.add(handle);
  return state;
}

export { pruneTurnLog } from './agents.turn-log.js';
export { seedBound } from './agents.seed.js';
