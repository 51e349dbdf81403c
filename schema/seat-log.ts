/**
 * A seat's log (`svc.seats.<handle>.log`, stream `SVC_SEATS`) as data: its records, its snapshots, the
 * needs events they become, and the one fold of a seat's open needs. Here rather than in the seat actor
 * because two folders fold it: the seat actor (its own state on start) and the read models' projection
 * `readmodels.seat_needs` (every seat's open needs), and projections import schema, not actors.
 */
import { z } from 'zod';

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

/**
 * The state folded up to a log sequence (`svc.seats.<handle>.snapshot`): the rebuild starts after it. The
 * epoch it stands on is its `svc-lease-epoch` header, written like every record's (absent: unknown, 0).
 */
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
