/** The completed-turn log behind `/agents/activity`: one summary per (seat, turn), pruned by age and size. */
import type { AgentsState, TurnSummary } from './agents.state.js';
import { instantMs } from '../time/instants.js';

/** Completed turns older than this leave the activity log (the event history is 30 days). */
export const turnLogMaxAgeMs = 30 * 86_400_000;
export const turnLogMaxRows = 50_000;

/** A completed turn's key in `turnsByKey`: its seat and its id (a turn id is one seat's). */
const turnKey = (handle: string, turnId: string): string => `${handle}\u0000${turnId}`;

/** The completed turn `turnId` of `handle` the log holds, if any. */
export const loggedTurn = (state: AgentsState, handle: string, turnId: string): TurnSummary | undefined =>
  state.turnsByKey.get(turnKey(handle, turnId));

export function logTurn(
  state: AgentsState,
  handle: string,
  d: {
    turn_id: string;
    started_at: string;
    ended_at: string;
    duration_ms: number;
    failed: boolean;
    review?: { reviewed: boolean; passed_first: boolean | null } | undefined;
  },
): void {
  const key = turnKey(handle, d.turn_id);
  const ended = instantMs(d.ended_at);
  if (ended === null || state.turnsByKey.has(key)) return;
  const turn: TurnSummary = {
    handle,
    turn_id: d.turn_id,
    ended_ms: ended,
    started_at: d.started_at,
    ended_at: d.ended_at,
    duration_ms: d.duration_ms,
    failed: d.failed,
    reviewed: d.review?.reviewed ?? false,
    passed_first: d.review?.passed_first ?? null,
  };
  state.turnsByKey.set(key, turn);
  state.turns.push(turn);
  if (state.turns.length > turnLogMaxRows) {
    const dropped = state.turns.splice(0, state.turns.length - turnLogMaxRows);
    for (const t of dropped) state.turnsByKey.delete(turnKey(t.handle, t.turn_id));
  }
}

/** Drops completed turns older than `turnLogMaxAgeMs` from the activity log. */
export function pruneTurnLog(state: AgentsState, nowMs: number): void {
  const floor = nowMs - turnLogMaxAgeMs;
  const keep = state.turns.filter((t) => t.ended_ms >= floor);
  if (keep.length === state.turns.length) return;
  for (const t of state.turns) if (t.ended_ms < floor) state.turnsByKey.delete(turnKey(t.handle, t.turn_id));
  state.turns.splice(0, state.turns.length, ...keep);
}
