/**
 * The `needs` state of this node's seats (`NeedsRecorder` for `ask_human`): needs are kept per seat and
 * turn id until the seat host ends that turn and takes them into its `agent_turn_completed`. A seat runs
 * one turn at a time, so a need recorded with no running turn (no turn id, or a turn already ended) is
 * carried by the seat's next completed turn rather than lost.
 */
import type { Need, NeedsRecorder } from '../toolservers/index.js';

/** Needs kept per seat between two completions (the newest win); a loop of asks cannot grow it. */
export const NEEDS_KEPT_PER_SEAT = 16;

export interface NeedsBoard extends NeedsRecorder {
  /** The needs of a turn that just ended, plus any recorded for the seat outside a turn; clears them. */
  take(seat: string, turnId: string): Need[];
}

export function createNeedsBoard(): NeedsBoard {
  const bySeat = new Map<string, Need[]>();
  return {
    recordNeed(seat, need) {
      const kept = [...(bySeat.get(seat) ?? []), need].slice(-NEEDS_KEPT_PER_SEAT);
      bySeat.set(seat, kept);
      return Promise.resolve();
    },
    take(seat, turnId) {
      const kept = bySeat.get(seat) ?? [];
      bySeat.delete(seat);
      // This turn's first, then those asked outside it, each in the order asked.
      return [...kept.filter((n) => n.turn_id === turnId), ...kept.filter((n) => n.turn_id !== turnId)];
    },
  };
}

const urgencyRank = { high: 2, normal: 1, low: 0 } as const;
const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * The `needs{reason, audience}` of a completion: the reason is the most urgent question (the latest of
 * equals), with how many more wait; the audience is every asked handle, in the order first asked.
 */
export function turnNeeds(needs: readonly Need[]): { reason: string; audience: string } | null {
  if (needs.length === 0) return null;
  let top = needs[0]!;
  for (const need of needs) if (urgencyRank[need.urgency] >= urgencyRank[top.urgency]) top = need;
  const more = needs.length - 1;
  return {
    reason: clip(top.question, 500) + (more > 0 ? ` (and ${more} more question${more > 1 ? 's' : ''})` : ''),
    audience: [...new Set(needs.map((n) => n.to))].join(', '),
  };
}
