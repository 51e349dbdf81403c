/**
 * The agents read model's per-seat facts beside the live call's own fields: the stop causes (`provider`,
 * `budget`, `needs`), `last_error`, and the cut of a call in flight. Each is gated on its own instant
 * (rule 3), so a late or replayed older event never overwrites what a newer one set.
 */
import { Payloads, type EventRecord } from '../../schema/index.js';
import type { SeatRuntime, StopCause } from './agents.state.js';
import { isNotOlder } from '../time/instants.js';
import { endLive } from './agents.ties.js';

/**
 * The call in flight stops (a pause with stop_running, a turn deferred to its provider's retry_at): the live
 * row no longer reads as running, and the cut marks the point a resumed turn's progress carries on from.
 */
export function cutLiveCall(seat: SeatRuntime, ms: number | null, turnId: string | null): void {
  const call = seat.live_call;
  if (!call?.in_progress || !isNotOlder(ms, seat.liveMs)) return;
  if (turnId !== null && call.turn_id !== turnId) return;
  seat.live_call = { ...call, in_progress: false, running_call: null };
  seat.cut = { turn_id: call.turn_id, phase: call.phase, iteration: call.iteration };
  endLive(seat, ms, seat.cut);
}

/** Questions closed: the row waits on what the record says remains, or on nothing. */
export function needsClosed(seat: SeatRuntime, ms: number | null, e: EventRecord): boolean {
  const p = Payloads.NeedsClosed.safeParse(e.payload);
  if (!p.success) return false;
  if (p.data.remaining) return setNeeds(seat, ms, p.data.remaining, e.timestamp);
  const open = seat.needs !== null;
  clearCause(seat, 'needs', ms);
  return open && seat.needs === null;
}

/** The wait on `needs`; it keeps its `since` while one of the questions it waited on is still open. */
export function setNeeds(
  seat: SeatRuntime,
  ms: number | null,
  needs: { reason: string; ids?: string[] | undefined },
  at: string,
): boolean {
  const prior = seat.needs;
  const ids = needs.ids;
  const goesOn = prior?.ids !== undefined && ids !== undefined && ids.some((id) => prior.ids?.includes(id));
  return setCause(seat, 'needs', ms, {
    since: goesOn ? prior.since : at,
    detail: needs.reason,
    ...(ids !== undefined ? { ids } : {}),
  });
}

type CauseKey = 'provider' | 'budget' | 'needs';
const causeStamp = { provider: 'providerMs', budget: 'budgetMs', needs: 'needsMs' } as const;

export function setCause(seat: SeatRuntime, key: CauseKey, ms: number | null, cause: StopCause): boolean {
  if (!isNotOlder(ms, seat[causeStamp[key]])) return false;
  seat[key] = cause;
  seat[causeStamp[key]] = ms;
  return true;
}

/**
 * Stamped even when no cause stands: a boot replay folds closing records before the seed-bounded events
 * that set the cause, and an older set must not outlive the newer clear (rule 3).
 */
export function clearCause(seat: SeatRuntime, key: CauseKey, ms: number | null): void {
  if (!isNotOlder(ms, seat[causeStamp[key]])) return;
  seat[key] = null;
  seat[causeStamp[key]] = ms;
}

export function setError(
  seat: SeatRuntime,
  ms: number | null,
  error: NonNullable<SeatRuntime['last_error']>,
): boolean {
  if (!isNotOlder(ms, seat.errorMs)) return false;
  seat.last_error = error;
  seat.errorMs = ms;
  return true;
}
