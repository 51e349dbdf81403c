/**
 * The live call's tie rules: records and frames stamped in the same millisecond (rule 3 alone cannot order
 * them). A seat publishes in its own order: a call's start, its frames, its ending, the turn's ending, the
 * next turn's start. Its records reach a read model in that order; its frames are folded apart from them (as
 * made on the seat's node, on their own subject elsewhere), so at a tie the seat's order decides:
 *  - a call's (or turn's) ending beats its frames and its start: they came before it;
 *  - a call's frame beats its start: the start came first, the frame only adds to it;
 *  - a call in progress beats the ending of another call, or of another turn, stamped at its instant: the
 *    seat ends one call before it starts the next, so the ending is the older news.
 */
import type { SeatRuntime } from './agents.state.js';

/** A call (phase null: every call of the turn). */
export interface LiveKey {
  readonly turn_id: string;
  readonly phase: string | null;
  readonly iteration: number;
}

const covers = (ended: LiveKey, call: LiveKey): boolean =>
  ended.turn_id === call.turn_id &&
  (ended.phase === null || (ended.phase === call.phase && ended.iteration === call.iteration));

/** The live view now shows news of instant `ms`: the endings of an older instant no longer tie with it. */
export function liveAt(seat: SeatRuntime, ms: number | null): void {
  if (ms !== seat.liveMs) seat.liveEnded = [];
  seat.liveMs = ms;
}

/** `call` ended (or was cut) at `ms`: a frame or start of it at that very instant is no newer. */
export function endLive(seat: SeatRuntime, ms: number | null, call: LiveKey): void {
  liveAt(seat, ms);
  seat.liveEnded = [...seat.liveEnded, call];
}

/** A frame or start of `call` stamped at the instant of its own (or its turn's) ending already folded. */
export function endedAt(seat: SeatRuntime, ms: number | null, call: LiveKey): boolean {
  return ms !== null && ms === seat.liveMs && seat.liveEnded.some((ended) => covers(ended, call));
}

/** At `ms`, the view already shows another call in progress than the one `ending` ends: it is the newer. */
export function newerCallShown(seat: SeatRuntime, ms: number | null, ending: LiveKey): boolean {
  const call = seat.live_call;
  return ms !== null && ms === seat.liveMs && call !== null && call.in_progress && !covers(ending, call);
}

/** The same call (turn, phase, pass). */
export const sameCall = (a: LiveKey | null, b: LiveKey): boolean =>
  a !== null && a.turn_id === b.turn_id && a.phase === b.phase && a.iteration === b.iteration;
