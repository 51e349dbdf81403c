/**
 * The retention state as a pure fold of the work log's retention records (retention.records.ts), and the
 * status every node answers from it (ops/work-tracker.md "Retention"). Folded by the same projection as
 * the items, in log order, so replaying the log rebuilds exactly what the live node held.
 */
import type { RetentionRecord, RetentionRecordKind } from './retention.records.js';

export interface RetentionHolder {
  readonly name: string;
  /** `node`: acknowledged by a node's own heartbeat; `external`: only by operators (a backup). */
  kind: 'node' | 'external';
  generation: number;
  seq: number;
  acked_at: string;
  acked_by: string;
  evicted: { at: string; by: string; reason: string } | null;
}

export interface MaintenanceWindow {
  readonly id: string;
  readonly opened_at: string;
  readonly opened_by: string;
  readonly reason: string;
  readonly generation: number;
  readonly below: number;
  readonly participants: readonly string[];
  readonly excluded: string[];
  state: 'open' | 'abandoned';
  closed: { at: string; by: string; reason: string } | null;
}

export interface RetentionCapacity {
  max_bytes: number | null;
  max_records: number | null;
  max_age_seconds: number | null;
  /** Nodes trim on their own while the log is over its capacity. */
  auto_trim: boolean;
  set_at: string | null;
  set_by: string | null;
}

/** What a gesture came to: answered again, unchanged, to a retry with the same `op_id`. */
export interface RetentionOutcome {
  readonly op_id: string;
  readonly kind: RetentionRecordKind;
  readonly seq: number;
  readonly position: string;
}

/** The last trim: every record below `below` is gone; the snapshot at `snapshot_seq` stands for them. */
export interface RetentionTrim {
  readonly op_id: string;
  readonly at: string;
  readonly by: string;
  readonly below: number;
  readonly generation: number;
  readonly snapshot_seq: number;
  readonly records: number;
  readonly bytes: number;
  /** Sequence of the trim record. */
  readonly seq: number;
}

export interface RetentionState {
  /** The stream creation stamp: the generation in every position handed out from `anchor.seq` on. */
  generation: number;
  anchor: { at: string | null; by: string | null; seq: number; reason: string };
  /** Sequences of every reanchor record, oldest first: a record after the n-th is of generation n + 1. */
  readonly anchors: number[];
  readonly holders: Map<string, RetentionHolder>;
  readonly capacity: RetentionCapacity;
  window: MaintenanceWindow | null;
  lastWindow: MaintenanceWindow | null;
  readonly ops: Map<string, RetentionOutcome>;
  /** Sequence of the newest record that is not a node's heartbeat: what a current node has applied. */
  head: number;
  /** The log as folded: records, their bytes, when the oldest was stored. */
  readonly log: { records: number; bytes: number; first_at: string | null };
  /** The last trim, or null when the log was never trimmed. */
  trim: RetentionTrim | null;
}

export const emptyRetentionState = (): RetentionState => ({
  generation: 1,
  anchor: { at: null, by: null, seq: 0, reason: '' },
  anchors: [],
  holders: new Map(),
  capacity: {
    max_bytes: null,
    max_records: null,
    max_age_seconds: null,
    auto_trim: false,
    set_at: null,
    set_by: null,
  },
  window: null,
  lastWindow: null,
  ops: new Map(),
  head: 0,
  log: { records: 0, bytes: 0, first_at: null },
  trim: null,
});

/** Counts one stored record (any subject of the work stream) into the log's size. */
export function foldLogSize(state: RetentionState, bytes: number, storedAt: Date): void {
  state.log.records += 1;
  state.log.bytes += bytes;
  state.log.first_at ??= storedAt.toISOString();
}

/** Records one record's sequence: every record but a heartbeat is something nodes must apply. */
export function foldHead(state: RetentionState, seq: number, heartbeat: boolean): void {
  if (!heartbeat) state.head = Math.max(state.head, seq);
}

/**
 * Folds one retention record stored at `seq` (`position` as the log names it), in place. A gesture
 * whose `op_id` was folded already is skipped, as item changes are.
 */
export function foldRetention(
  state: RetentionState,
  record: RetentionRecord,
  seq: number,
  position: string,
): void {
  if (record.kind === 'retention.node_acked') {
    const held = state.holders.get(record.node);
    if (held) Object.assign(held, { kind: 'node', generation: record.generation, seq: record.seq });
    const holder = held ?? newHolder(record.node, 'node', record.generation, record.seq, record);
    holder.acked_at = record.at;
    holder.acked_by = record.node;
    state.holders.set(record.node, holder);
    return;
  }
  if (state.ops.has(record.op_id)) return;
  state.ops.set(record.op_id, { op_id: record.op_id, kind: record.kind, seq, position });
  const holder = 'holder' in record ? state.holders.get(record.holder) : undefined;
  switch (record.kind) {
    case 'retention.acked':
      if (holder) Object.assign(holder, { generation: record.generation, seq: record.seq });
      state.holders.set(
        record.holder,
        Object.assign(holder ?? newHolder(record.holder, 'external', record.generation, record.seq, record), {
          acked_at: record.at,
          acked_by: record.actor,
        }),
      );
      return;
    case 'retention.evicted':
      if (holder) holder.evicted = { at: record.at, by: record.actor, reason: record.reason };
      return;
    case 'retention.readmitted':
      if (holder) holder.evicted = null;
      return;
    case 'retention.capacity_set':
      Object.assign(state.capacity, {
        max_bytes: record.max_bytes,
        max_records: record.max_records,
        max_age_seconds: record.max_age_seconds,
        auto_trim: record.auto_trim,
        set_at: record.at,
        set_by: record.actor,
      });
      return;
    case 'retention.maintenance_opened':
      state.window = {
        id: record.op_id,
        opened_at: record.at,
        opened_by: record.actor,
        reason: record.reason,
        generation: state.generation,
        below: record.below,
        participants: record.participants,
        excluded: [],
        state: 'open',
        closed: null,
      };
      return;
    case 'retention.maintenance_excluded':
      if (state.window?.id === record.window && !state.window.excluded.includes(record.holder))
        state.window.excluded.push(record.holder);
      return;
    case 'retention.maintenance_abandoned':
      if (state.window?.id !== record.window) return;
      state.window.state = 'abandoned';
      state.window.closed = { at: record.at, by: record.actor, reason: record.reason };
      state.lastWindow = state.window;
      state.window = null;
      return;
    case 'retention.reanchored':
      if (record.generation <= state.generation) return;
      state.generation = record.generation;
      state.anchor = { at: record.at, by: record.actor, seq, reason: record.reason };
      state.anchors.push(seq);
      return;
    case 'retention.trimmed':
      if (state.trim !== null && record.below <= state.trim.below) return;
      state.trim = {
        op_id: record.op_id,
        at: record.at,
        by: record.actor,
        below: record.below,
        generation: record.snapshot.generation,
        snapshot_seq: record.snapshot.seq,
        records: record.removed.records,
        bytes: record.removed.bytes,
        seq,
      };
      state.log.records = Math.max(0, state.log.records - record.removed.records);
      state.log.bytes = Math.max(0, state.log.bytes - record.removed.bytes);
      state.log.first_at = record.first_at ?? record.at;
      return;
  }
}

/** The first sequence the log still holds as far as trims go (1 when never trimmed). */
export const trimmedBelow = (state: RetentionState): number => state.trim?.below ?? 1;

function newHolder(
  name: string,
  kind: RetentionHolder['kind'],
  generation: number,
  seq: number,
  record: { at: string; actor: string },
): RetentionHolder {
  return { name, kind, generation, seq, acked_at: record.at, acked_by: record.actor, evicted: null };
}

/** The generation a record stored at `seq` was stored in (its position's generation). */
export const generationAt = (state: RetentionState, seq: number): number =>
  1 + state.anchors.filter((a) => a < seq).length;

/** A holder is current when its acknowledgement is of this generation and reaches the head. */
export const holderCurrent = (state: RetentionState, holder: RetentionHolder): boolean =>
  holder.generation === state.generation && holder.seq >= state.head;

/**
 * The lowest position the admitted holders hold the log at: nothing at or above it may be trimmed.
 * A holder acknowledged in an earlier generation holds the whole log (0); with no admitted holder
 * nothing may be trimmed either (0).
 */
export function retentionFloor(state: RetentionState): number {
  const admitted = [...state.holders.values()].filter((h) => h.evicted === null);
  if (admitted.length === 0) return 0;
  return Math.min(...admitted.map((h) => (h.generation === state.generation ? h.seq : 0)));
}

/** Which capacity limits the log is over at `now` (`records`, `bytes`, `age`). */
export function overCapacity(state: RetentionState, now: Date): string[] {
  const { capacity: c, log } = state;
  const over: string[] = [];
  if (c.max_records !== null && log.records > c.max_records) over.push('records');
  if (c.max_bytes !== null && log.bytes > c.max_bytes) over.push('bytes');
  const age = log.first_at === null ? 0 : (now.getTime() - Date.parse(log.first_at)) / 1000;
  if (c.max_age_seconds !== null && age > c.max_age_seconds) over.push('age');
  return over;
}
