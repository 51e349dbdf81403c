/**
 * The work tracker's state as a pure fold of the work stream: what every read answers from and what the
 * writer decides against. The projection (projections/work) and the writer (actors/work) share it, so the
 * state a decision sees is the one the reads show.
 */
import { canonicalId } from '../text-grammars.js';
import { ActivityLog } from './activity-log.js';
import type { Comment } from './comment.js';
import type { ItemFields } from './item.js';
import { foldPerson, personOutcomeKey, type PersonState } from './person.js';
import { formatPosition } from './position.js';
import type { WorkRecord, WorkRecordKind } from './records.js';
import { emptyRetentionState, type RetentionState } from './retention.state.js';
import {
  emptyWorkIndex,
  indexCommented,
  indexCreated,
  indexFields,
  indexMoved,
  indexPurged,
  type WorkIndex,
} from './state.index.js';
import type { WorkStatus } from './statuses.js';

/** One field's change: what it was and what it became. */
export type FieldDelta = Readonly<Record<string, { from: unknown; to: unknown }>>;

export interface ActivityRow {
  readonly seq: number;
  readonly position: string;
  readonly at: string;
  readonly actor: string;
  readonly kind: WorkRecordKind;
  readonly item: string;
  readonly project: string;
  readonly turn_id: string | null;
  readonly fields: FieldDelta;
  /** Comment id of an `item.commented` row. */
  readonly comment?: string;
}

export interface WorkItem {
  readonly id: string;
  readonly key: string;
  readonly project: string;
  readonly number: number;
  status: WorkStatus;
  fields: ItemFields;
  readonly created_at: string;
  readonly created_by: string;
  updated_at: string;
  /** Oldest first. */
  readonly comments: Comment[];
  /** Oldest first: the item's own activity rows. */
  readonly history: ActivityRow[];
}

/** What a change came to: answered again, unchanged, to a retry with the same `op_id`. */
export interface WorkOutcome {
  readonly op_id: string;
  readonly kind: WorkRecordKind;
  readonly id: string;
  readonly key: string;
  readonly seq: number;
  readonly position: string;
}

/** A project file as listed (`removed` once deleted; its versions keep counting). */
export interface WorkFile {
  readonly project: string;
  readonly path: string;
  version: number;
  size: number;
  content_type: string;
  sha256: string;
  removed: boolean;
  updated_at: string;
  updated_by: string;
}

export interface WorkState {
  /** `<project>/<path>` -> file. */
  readonly files: Map<string, WorkFile>;
  readonly items: Map<string, WorkItem>;
  readonly keys: Map<string, string>;
  /** Last number handed out per project (never reused, purges included). */
  readonly counters: Map<string, number>;
  readonly ops: Map<string, WorkOutcome>;
  /** Every change, oldest first (purged items' rows removed, the purge row kept): read by `rows()`. */
  readonly activity: ActivityLog<ActivityRow>;
  /** Item id -> key for every item ever created (activity rows of purged items still resolve). */
  readonly everKeys: Map<string, string>;
  /** Newest change per project (RFC 3339). */
  readonly lastChange: Map<string, string>;
  /** Each person's own inbox state, priorities and views (person.ts); absent until they write. */
  readonly people: Map<string, PersonState>;
  /** The log's retention: holders, capacity, maintenance window, generation (ops "Retention"). */
  readonly retention: RetentionState;
  /** What the reads narrow by (state.index.ts): kept by this fold, derived from `items` alone. */
  readonly index: WorkIndex<WorkItem>;
  seq: number;
}

export const emptyWorkState = (): WorkState => ({
  files: new Map(),
  items: new Map(),
  keys: new Map(),
  counters: new Map(),
  ops: new Map(),
  activity: new ActivityLog<ActivityRow>(),
  everKeys: new Map(),
  lastChange: new Map(),
  people: new Map(),
  retention: emptyRetentionState(),
  index: emptyWorkIndex<WorkItem>(),
  seq: 0,
});

function delta(before: Partial<ItemFields>, after: Partial<ItemFields>): FieldDelta {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const [name, to] of Object.entries(after)) {
    const from = (before as Record<string, unknown>)[name] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) out[name] = { from, to };
  }
  return out;
}

/** Folds one record stored at `seq` into `state` (in place). A record that does not fit is skipped. */
export function foldWork(state: WorkState, record: WorkRecord, seq: number): void {
  state.seq = Math.max(state.seq, seq);
  if (state.ops.has(record.op_id)) return;
  const position = formatPosition(seq, state.retention.generation);
  const row = (
    item: { id: string; project: string },
    fields: FieldDelta,
    extra: { comment?: string } = {},
  ) => ({
    seq,
    position,
    at: record.at,
    actor: record.actor,
    kind: record.kind,
    item: item.id,
    project: item.project,
    turn_id: record.turn_id,
    fields,
    ...extra,
  });
  if (record.kind === 'item.created') {
    if (state.items.has(record.id) || state.keys.has(record.key)) return;
    const activity = row(
      record,
      delta({}, { ...record.fields, status: record.status } as Partial<ItemFields>),
    );
    const item: WorkItem = {
      id: record.id,
      key: record.key,
      project: record.project,
      number: record.number,
      status: record.status,
      fields: record.fields,
      created_at: record.at,
      created_by: record.actor,
      updated_at: record.at,
      comments: [],
      history: [activity],
    };
    state.items.set(item.id, item);
    indexCreated(state.index, item, seq);
    state.keys.set(item.key, item.id);
    state.everKeys.set(item.id, item.key);
    state.counters.set(record.project, Math.max(state.counters.get(record.project) ?? 0, record.number));
    state.activity.push(activity);
    state.lastChange.set(record.project, record.at);
    keepOutcome(state, record, item.id, item.key, seq, position);
    return;
  }
  if (record.kind === 'person.changed') {
    foldPerson(state.people, record);
    keepOutcome(state, record, record.id, personOutcomeKey(record), seq, position);
    return;
  }
  if (record.kind === 'file.put' || record.kind === 'file.removed') {
    foldFile(state, record, seq, position);
    return;
  }
  const item = state.items.get(record.id);
  if (!item) return;
  let activity: ActivityRow;
  switch (record.kind) {
    case 'item.updated':
      activity = row(item, delta(item.fields, record.changes));
      indexFields(state.index, item, true);
      item.fields = { ...item.fields, ...record.changes };
      indexFields(state.index, item);
      break;
    case 'item.moved':
      activity = row(item, { status: { from: item.status, to: record.to } });
      indexMoved(state.index, item, record.to);
      item.status = record.to;
      break;
    case 'item.commented':
      activity = row(item, {}, { comment: record.comment.id });
      item.comments.push(record.comment);
      indexCommented(state.index, item, record.comment);
      break;
    case 'item.purged':
      activity = row(item, { reason: { from: null, to: record.reason } });
      state.items.delete(item.id);
      state.keys.delete(item.key);
      indexPurged(state.index, item);
      state.activity.purge(item.id);
      break;
  }
  item.updated_at = record.at;
  item.history.push(activity);
  state.activity.push(activity);
  state.lastChange.set(item.project, record.at);
  keepOutcome(state, record, item.id, item.key, seq, position);
}

function foldFile(
  state: WorkState,
  record: Extract<WorkRecord, { kind: 'file.put' | 'file.removed' }>,
  seq: number,
  position: string,
): void {
  const id = `${record.project}/${record.path}`;
  const file = state.files.get(id);
  if (record.kind === 'file.put') {
    state.files.set(id, {
      project: record.project,
      path: record.path,
      version: record.version,
      size: record.size,
      content_type: record.content_type,
      sha256: record.sha256,
      removed: false,
      updated_at: record.at,
      updated_by: record.actor,
    });
  } else if (file) {
    file.version = record.version;
    file.removed = true;
    file.updated_at = record.at;
    file.updated_by = record.actor;
  } else return;
  state.lastChange.set(record.project, record.at);
  keepOutcome(state, record, id, record.path, seq, position);
}

/** Keeps what `record` came to under its `op_id`: a retry with the same id is answered with it, unchanged. */
function keepOutcome(
  state: WorkState,
  record: WorkRecord,
  id: string,
  key: string,
  seq: number,
  position: string,
): void {
  state.ops.set(record.op_id, { op_id: record.op_id, kind: record.kind, id, key, seq, position });
}

/**
 * An item's version, its `ETag`: the number of changes it has had (its history rows, the create
 * included), so every node and every replay count the same.
 */
export const itemVersion = (item: WorkItem): number => item.history.length;

/** The item a reference names (its key in any case, else its id in any case), or null. */
export function itemByRef(state: WorkState, ref: string): WorkItem | null {
  const id = state.keys.get(ref.toUpperCase()) ?? canonicalId(ref);
  return state.items.get(id) ?? null;
}
