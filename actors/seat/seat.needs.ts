/**
 * A seat's open needs (the questions `ask_human` recorded) as the seat actor's event-sourced state. The
 * log's records, the machine events they become and the one fold both the machine and the rebuild on
 * start apply are schema's (schema/seat-log.ts, shared with the read models' projection; import them from
 * schema); what follows is the actor's own reading of them. Pure: schema only.
 */
import { NEEDS_KEPT_PER_SEAT, type SeatNeed } from '../../schema/index.js';

/** Kept here rather than shared (actors/text.ts): a machine's siblings import only siblings, xstate and schema. */
const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * Whether `need` may be recorded: one already open (a retried call) always may, a new one only while
 * fewer than `NEEDS_KEPT_PER_SEAT` are open.
 */
export const roomForNeed = (needs: readonly SeatNeed[], need: SeatNeed): boolean =>
  needs.length < NEEDS_KEPT_PER_SEAT || needs.some((n) => n.id === need.id);

/** The open needs a wake from `from` answers: every question asked of that human. */
export const answeredBy = (needs: readonly SeatNeed[], from: string): string[] =>
  needs.filter((n) => n.to === from).map((n) => n.id);

/** What a completion of `turnId` carries: the turn's own needs first, then those asked outside it. */
export const needsFor = (needs: readonly SeatNeed[], turnId: string): SeatNeed[] => [
  ...needs.filter((n) => n.turn_id === turnId),
  ...needs.filter((n) => n.turn_id !== turnId),
];

const urgencyRank = { high: 2, normal: 1, low: 0 } as const;

/** What a completion (or a closing record) says the seat waits on. */
export interface NeedsSummary {
  reason: string;
  audience: string;
  /** Every open need's id: the wait lasts while one is open. */
  ids: string[];
}

/**
 * The `needs{reason, audience, ids}` of a completion: the reason is the most urgent question (the latest
 * of equals), with how many more wait; the audience is every asked handle, in the order first asked.
 */
export function turnNeeds(needs: readonly SeatNeed[]): NeedsSummary | null {
  if (needs.length === 0) return null;
  let top = needs[0]!;
  for (const need of needs) if (urgencyRank[need.urgency] >= urgencyRank[top.urgency]) top = need;
  const more = needs.length - 1;
  return {
    reason: clip(top.question, 500) + (more > 0 ? ` (and ${more} more question${more > 1 ? 's' : ''})` : ''),
    audience: [...new Set(needs.map((n) => n.to))].join(', '),
    ids: needs.map((n) => n.id),
  };
}
