/** The completed-turn log behind `/agents/activity`: one summary per (seat, turn), pruned by age and size. */
import type { AgentsState } from './agents.state.js';
import { instantMs } from '../time/instants.js';

/** Completed turns older than this leave the activity log (the event history is 30 days). */
export const turnLogMaxAgeMs = 30 * 86_400_000;
export const turnLogMaxRows = 50_000;

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
  const key = `${handle}\u0000${d.turn_id}`;
  const ended = instantMs(d.ended_at);
  if (ended === null || state.turnIds.has(key)) return;
  state.turnIds.add(key);
  state.turns.push({
    handle,
    turn_id: d.turn_id,
    ended_ms: ended,
    started_at: d.started_at,
    ended_at: d.ended_at,
    duration_ms: d.duration_ms,
    failed: d.failed,
    reviewed: d.review?.reviewed ?? false,
    passed_first: d.review?.passed_first ?? null,
  });
  if (state.turns.length > turnLogMaxRows) {
    const dropped = state.turns.splice(0, state.turns.length - turnLogMaxRows);
    for (const t of dropped) state.turnIds.delete(`${t.handle}\u0000${t.turn_id}`);
  }
}

/** Drops completed turns older than `turnLogMaxAgeMs` from the activity log. */
export function pruneTurnLog(state: AgentsState, nowMs: number): void {
  const floor = nowMs - turnLogMaxAgeMs;
  const keep = state.turns.filter((t) => t.ended_ms >= floor);
  if (keep.length === state.turns.length) return;
  for (const t of state.turns) if (t.ended_ms < floor) state.turnIds.delete(`${t.handle}\u0000${t.turn_id}`);
  state.turns.splice(0, state.turns.length, ...keep);
}
