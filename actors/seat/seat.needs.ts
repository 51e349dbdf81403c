/**
 * A seat's open needs (the questions `ask_human` recorded) as the seat actor's event-sourced state: the
 * records of the seat's log (seat.log.ts), the machine events they become, and the one fold both the
 * machine and the rebuild on start apply. Pure: zod only.
 */
import { z } from 'zod';

/** Kept here rather than shared (actors/text.ts): a machine's siblings import only siblings, xstate and schema. */
const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * Open needs a seat may hold: `ask_human` past it is refused (`roomForNeed`), so no open question is
 * dropped. The fold keeps the newest this many too, a safety net for logs written before that refusal.
 */
export const NEEDS_KEPT_PER_SEAT = 16;

export const SeatNeed = z.object({
  id: z.string(),
  to: z.string(),
  question: z.string(),
  context: z.string().nullable(),
  urgency: z.enum(['low', 'normal', 'high']),
  asked_at: z.string(),
  turn_id: z.string().nullable(),
});
export type SeatNeed = z.infer<typeof SeatNeed>;

const stamp = { at: z.string(), node: z.string() };

/**
 * Why open needs closed: the asked human `answered` (a wake from them started a turn), the seat
 * `withdrawn` its question (`withdraw_question`), or an operator `cleared` them.
 */
export const NeedsClosedCause = z.enum(['answered', 'withdrawn', 'cleared']);
export type NeedsClosedCause = z.infer<typeof NeedsClosedCause>;

/** One record of a seat's log (`svc.seats.<handle>.log`). */
export const SeatLogRecord = z.discriminatedUnion('kind', [
  /** `ask_human` recorded a question the seat now waits on. */
  z.object({ kind: z.literal('need_recorded'), ...stamp, need: SeatNeed }),
  /**
   * Earlier releases: a completion carried these needs and they left the state (the agent row held the
   * wait until the next phase). Read still, never written: a need now stays until it is closed.
   */
  z.object({ kind: z.literal('needs_taken'), ...stamp, turn_id: z.string(), ids: z.array(z.string()) }),
  /**
   * These needs are no longer open. `by`: the human who answered, the seat that withdrew, the operator who
   * cleared; `key`: what makes the record one (the answering wake's id, the withdrawing call's, the
   * operator command's), so a retry stores it once.
   */
  z.object({
    kind: z.literal('needs_closed'),
    ...stamp,
    cause: NeedsClosedCause,
    ids: z.array(z.string()),
    by: z.string(),
    key: z.string(),
    turn_id: z.string().nullable(),
  }),
]);
export type SeatLogRecord = z.infer<typeof SeatLogRecord>;
/** A record as the host appends it: the log stamps `at` and `node`. */
export type SeatLogEntry = SeatLogRecord extends infer R
  ? R extends SeatLogRecord
    ? Omit<R, 'at' | 'node'>
    : never
  : never;

/** The state folded up to a log sequence (`svc.seats.<handle>.snapshot`): the rebuild starts after it. */
export const SeatSnapshot = z.object({ ...stamp, seq: z.number().int(), needs: z.array(SeatNeed) });
export type SeatSnapshot = z.infer<typeof SeatSnapshot>;

/** The seat machine's events for its needs: what a log record is once it is stored. */
export type NeedsEvent =
  { type: 'seat.need.recorded'; need: SeatNeed } | { type: 'seat.needs.closed'; ids: readonly string[] };

export const needsEventOf = (record: SeatLogEntry): NeedsEvent =>
  record.kind === 'need_recorded'
    ? { type: 'seat.need.recorded', need: record.need }
    : { type: 'seat.needs.closed', ids: record.ids };

/**
 * The open needs after one event. A need recorded twice (a builtin retried after a cut keeps its id) is
 * kept once, where it was first asked. Past the cap the oldest goes: only a log written before asks past
 * it were refused can get there.
 */
export function foldNeeds(needs: readonly SeatNeed[], event: NeedsEvent): readonly SeatNeed[] {
  if (event.type === 'seat.need.recorded') {
    if (needs.some((n) => n.id === event.need.id)) return needs;
    return [...needs, event.need].slice(-NEEDS_KEPT_PER_SEAT);
  }
  const taken = new Set(event.ids);
  return needs.some((n) => taken.has(n.id)) ? needs.filter((n) => !taken.has(n.id)) : needs;
}

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
