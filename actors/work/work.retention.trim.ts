/**
 * Trimming the work log (ops/work-tracker.md "Retention", `POST /work/retention/trim`): this node catches
 * up, writes a snapshot of its state at its head H to the bus, records the trim on the work stream, then
 * removes the records below `min(floor, H + 1)` — only as far as the capacity asks when one is set, and
 * never from the first project record whose effects are not delivered yet (`heldByEffects`). The
 * record comes before the removal: a removal cut short is finished by a retry of the same `op_id` (or by
 * the next trim), and a node that starts meanwhile still folds the whole log it finds.
 */
import {
  overCapacity,
  retentionFloor,
  trimmedBelow,
  type RetentionRecord,
  type RetentionState,
} from '../../schema/index.js';
import { subjectMatches, Subjects } from '../../bus/index.js';
import type { Refusal } from './work.types.js';

/** One record that could go: its sequence, subject, size and when it was stored (ms). */
export interface TrimCandidate {
  readonly seq: number;
  readonly subject: string;
  readonly bytes: number;
  readonly time: number;
}

export interface TrimPlan {
  readonly below: number;
  readonly removed: { readonly records: number; readonly bytes: number };
  /** When the first record kept was stored (ms), when it is among the candidates. */
  readonly firstKept: number | null;
}

const nothing = (detail: string): Refusal => ({
  refused: { error: 'nothing_to_trim', detail, problems: [] },
});

/** Below which sequence records may go at most (exclusive), or why none may. */
export function trimLimit(r: RetentionState, firstSeq: number, head: number): number | Refusal {
  if (r.window)
    return {
      refused: {
        error: 'maintenance_open',
        detail: `maintenance window ${r.window.id} is open: abandon it first`,
        problems: [],
      },
    };
  if (![...r.holders.values()].some((h) => h.evicted === null))
    return nothing('no admitted holder: with nobody acknowledging the log, no record may go');
  const floor = retentionFloor(r);
  const limit = Math.min(floor, head + 1);
  const first = Math.max(firstSeq, trimmedBelow(r));
  if (limit <= first)
    return nothing(
      `the floor is ${floor} and the log starts at ${first}: every record is held ` +
        '(a holder acknowledged in an earlier generation holds the whole log)',
    );
  return limit;
}

/** The first project record the effects consumer has not acknowledged, and that consumer's ack floor. */
export interface EffectsOwed {
  readonly seq: number;
  readonly ackFloor: number;
}

/**
 * The first project record among `candidates` past the effects consumer's ack floor (null: no such
 * consumer): the first one it may still owe task events and wakes. Records its filter skips are not owed.
 */
export function firstOwed(candidates: readonly TrimCandidate[], ackFloor: number | null): EffectsOwed | null {
  if (ackFloor === null) return null;
  const owed = candidates.find((c) => c.seq > ackFloor && subjectMatches(Subjects.workProjects, c.subject));
  return owed ? { seq: owed.seq, ackFloor } : null;
}

/**
 * Where the effects consumer (`work_effects`) holds a plan back: a purge past a record it still owes would
 * move it past that record, whose task events and wakes would then never be delivered. The plan's new
 * limit when it would remove `owed`, a refusal when `owed` is the log's first record, null when the plan
 * stops before it (or nothing is owed).
 */
export function heldByEffects(
  plan: TrimPlan,
  first: number,
  owed: EffectsOwed | null,
): number | Refusal | null {
  if (owed === null || owed.seq >= plan.below) return null;
  if (owed.seq <= first)
    return nothing(
      `the effects consumer work_effects has acknowledged up to ${owed.ackFloor} and the log starts at ` +
        `${first}: the task events and wakes of record ${owed.seq} are not delivered yet, and every record ` +
        'from it on is held until they are',
    );
  return owed.seq;
}

/**
 * How far to trim among `candidates` (every record below the limit, in order): all of them without a
 * capacity, else the fewest that bring the log within it (all when even that is not enough) — within
 * `headroom` of it, a share of each limit left free, when one is given.
 */
export function planTrim(
  r: RetentionState,
  limit: number,
  candidates: readonly TrimCandidate[],
  now: Date,
  headroom = 0,
): TrimPlan | Refusal {
  const c = r.capacity;
  const capped = c.max_bytes !== null || c.max_records !== null || c.max_age_seconds !== null;
  if (capped && overCapacity(r, now).length === 0)
    return nothing('the log is within its capacity (`over_capacity` is empty)');
  const keep = (max: number): number => Math.floor(max * (1 - headroom));
  const within = (records: number, bytes: number, firstTime: number): boolean =>
    (c.max_records === null || r.log.records - records <= keep(c.max_records)) &&
    (c.max_bytes === null || r.log.bytes - bytes <= keep(c.max_bytes)) &&
    (c.max_age_seconds === null || firstTime >= now.getTime() - keep(c.max_age_seconds) * 1000);
  let records = 0;
  let bytes = 0;
  for (const candidate of candidates) {
    if (capped && records > 0 && within(records, bytes, candidate.time))
      return { below: candidate.seq, removed: { records, bytes }, firstKept: candidate.time };
    records += 1;
    bytes += candidate.bytes;
  }
  if (records === 0) return nothing(`no record is stored below ${limit}`);
  return { below: limit, removed: { records, bytes }, firstKept: null };
}

/** The trim record of a plan, and the event that announces it. */
export function trimRecord(
  base: { op_id: string; at: string; actor: string },
  plan: TrimPlan,
  snapshot: { seq: number; generation: number; sha256: string; size: number },
  firstAt: string | null,
) {
  const record: RetentionRecord = {
    kind: 'retention.trimmed',
    ...base,
    below: plan.below,
    snapshot,
    removed: plan.removed,
    first_at: firstAt,
  };
  const event = {
    type: 'work_retention_trimmed',
    summary: `work log trimmed below ${plan.below} (${plan.removed.records} records)`,
    payload: {
      below: plan.below,
      records: plan.removed.records,
      bytes: plan.removed.bytes,
      snapshot_seq: snapshot.seq,
      by: base.actor,
    },
  };
  return { record, event };
}
