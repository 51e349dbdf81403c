/**
 * Given/when/then on the seat machine's `transition()` (STYLE.md 14): the snapshot type, the effects a
 * run of events names, a test clock in seconds and a mention wake.
 */
import { transition, type SnapshotFrom } from 'xstate';
import { seatMachine, type SeatEvent, type Wake } from '../../../actors/seat/seat.machine.js';

export type Snap = SnapshotFrom<typeof seatMachine>;

/** An effect the machine names for its host to run (xstate's own actions left out). */
export interface Effect {
  type: string;
  params: Record<string, unknown>;
}

/** `s` seconds into 2026 (UTC), as an RFC 3339 instant. */
export const at = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

/** A mention: the plainest wake, on trace `t`. */
export const wake: Wake = {
  id: 'w1',
  kind: 'mention',
  source: 'test',
  summary: 'do it',
  trace_id: 't',
  payload: {},
};

/** Runs `events` from `snap` in turn: the snapshot they lead to and every effect named on the way. */
export function when(snap: Snap, ...events: SeatEvent[]): { snap: Snap; effects: Effect[] } {
  const effects: Effect[] = [];
  for (const event of events) {
    const [next, actions] = transition(seatMachine, snap, event);
    snap = next;
    for (const a of actions)
      if (!a.type.startsWith('xstate.')) effects.push({ type: a.type, params: a.params ?? {} });
  }
  return { snap, effects };
}
