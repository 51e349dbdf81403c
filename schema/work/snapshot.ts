/**
 * A snapshot of the work state (ops/work-tracker.md "Retention"): `WorkState` as folded up to one
 * sequence, in plain JSON (maps as arrays), so a node whose log was trimmed starts from it and folds
 * what follows. Versioned: a snapshot of another version is not read (the node folds nothing it cannot
 * trust). An item's history is not stored: it is the activity rows of that item, in order, which the
 * fold keeps identical (`foldWork`), so it is rebuilt from them and the rows stay shared.
 */
import { z } from 'zod';
import { ActivityLog } from './activity-log.js';
import { Comment } from './comment.js';
import { ItemFields } from './item.js';
import { SavedView } from './person.js';
import type { PersonState } from './person.js';
import type { MaintenanceWindow, RetentionState } from './retention.state.js';
import { indexCommented, indexCreated } from './state.index.js';
import { emptyWorkState, type ActivityRow, type WorkState } from './state.js';
import { workStatuses } from './statuses.js';

export const WORK_SNAPSHOT_VERSION = 1;

const pair = <K extends z.ZodTypeAny, V extends z.ZodTypeAny>(k: K, v: V) => z.array(z.tuple([k, v]));
const kinds = z.enum([
  'item.created',
  'item.updated',
  'item.moved',
  'item.commented',
  'item.purged',
  'file.put',
  'file.removed',
  'person.changed',
]);
const retentionKinds = z.enum([
  'retention.node_acked',
  'retention.acked',
  'retention.evicted',
  'retention.readmitted',
  'retention.capacity_set',
  'retention.maintenance_opened',
  'retention.maintenance_excluded',
  'retention.maintenance_abandoned',
  'retention.reanchored',
  'retention.trimmed',
]);
const closed = z.object({ at: z.string(), by: z.string(), reason: z.string() }).nullable();
const window = z
  .object({
    id: z.string(),
    opened_at: z.string(),
    opened_by: z.string(),
    reason: z.string(),
    generation: z.number(),
    below: z.number(),
    participants: z.array(z.string()),
    excluded: z.array(z.string()),
    state: z.enum(['open', 'abandoned']),
    closed,
  })
  .nullable();

const Activity = z.object({
  seq: z.number(),
  position: z.string(),
  at: z.string(),
  actor: z.string(),
  kind: kinds,
  item: z.string(),
  project: z.string(),
  turn_id: z.string().nullable(),
  fields: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
  comment: z.string().optional(),
});

const Retention = z.object({
  generation: z.number(),
  anchor: z.object({
    at: z.string().nullable(),
    by: z.string().nullable(),
    seq: z.number(),
    reason: z.string(),
  }),
  anchors: z.array(z.number()),
  holders: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(['node', 'external']),
      generation: z.number(),
      seq: z.number(),
      acked_at: z.string(),
      acked_by: z.string(),
      evicted: closed,
    }),
  ),
  capacity: z.object({
    max_bytes: z.number().nullable(),
    max_records: z.number().nullable(),
    max_age_seconds: z.number().nullable(),
    // Snapshots written before automatic trims existed hold none.
    auto_trim: z.boolean().default(false),
    set_at: z.string().nullable(),
    set_by: z.string().nullable(),
  }),
  window,
  lastWindow: window,
  ops: z.array(z.object({ op_id: z.string(), kind: retentionKinds, seq: z.number(), position: z.string() })),
  head: z.number(),
  log: z.object({ records: z.number(), bytes: z.number(), first_at: z.string().nullable() }),
  trim: z
    .object({
      op_id: z.string(),
      at: z.string(),
      by: z.string(),
      below: z.number(),
      generation: z.number(),
      snapshot_seq: z.number(),
      records: z.number(),
      bytes: z.number(),
      seq: z.number(),
    })
    .nullable(),
});

export const WorkSnapshot = z.object({
  version: z.literal(WORK_SNAPSHOT_VERSION),
  seq: z.number().int().nonnegative(),
  files: z.array(
    z.object({
      project: z.string(),
      path: z.string(),
      version: z.number(),
      size: z.number(),
      content_type: z.string(),
      sha256: z.string(),
      removed: z.boolean(),
      updated_at: z.string(),
      updated_by: z.string(),
    }),
  ),
  items: z.array(
    z.object({
      id: z.string(),
      key: z.string(),
      project: z.string(),
      number: z.number(),
      status: z.enum(workStatuses),
      fields: ItemFields,
      created_at: z.string(),
      created_by: z.string(),
      updated_at: z.string(),
      comments: z.array(Comment),
    }),
  ),
  counters: pair(z.string(), z.number()),
  ops: z.array(
    z.object({
      op_id: z.string(),
      kind: kinds,
      id: z.string(),
      key: z.string(),
      seq: z.number(),
      position: z.string(),
    }),
  ),
  activity: z.array(Activity),
  everKeys: pair(z.string(), z.string()),
  lastChange: pair(z.string(), z.string()),
  people: z.array(
    z.object({
      handle: z.string(),
      read_through: z.number(),
      read: z.array(z.number()),
      snoozed: pair(z.number(), z.string()),
      priorities: z.array(z.string()).nullable(),
      views: z.array(SavedView),
      pinned: z.array(z.string()),
      updated_at: z.string(),
    }),
  ),
  retention: Retention,
});
export type WorkSnapshot = z.infer<typeof WorkSnapshot>;

/** The state as a snapshot (synchronous: it is the state at one sequence, `state.seq`). */
export function snapshotOf(state: WorkState): WorkSnapshot {
  const r = state.retention;
  return {
    version: WORK_SNAPSHOT_VERSION,
    seq: state.seq,
    files: [...state.files.values()].map((f) => ({ ...f })),
    items: [...state.items.values()].map(({ history: _history, comments, ...item }) => ({
      ...item,
      comments: [...comments],
    })),
    counters: [...state.counters],
    ops: [...state.ops.values()],
    activity: [...state.activity.rows()],
    everKeys: [...state.everKeys],
    lastChange: [...state.lastChange],
    people: [...state.people.values()].map((p) => ({
      ...p,
      read: [...p.read],
      snoozed: [...p.snoozed],
      views: [...p.views.values()],
      pinned: [...p.pinned],
    })),
    retention: {
      ...r,
      anchor: { ...r.anchor },
      anchors: [...r.anchors],
      holders: [...r.holders.values()].map((h) => ({ ...h })),
      capacity: { ...r.capacity },
      window: windowCopy(r.window),
      lastWindow: windowCopy(r.lastWindow),
      ops: [...r.ops.values()],
      log: { ...r.log },
    },
  };
}

const windowCopy = (w: MaintenanceWindow | null) =>
  w && { ...w, participants: [...w.participants], excluded: [...w.excluded] };

/** The state a snapshot stands for, as the fold would hold it at `snapshot.seq`. */
export function stateOfSnapshot(snapshot: WorkSnapshot): WorkState {
  const state = emptyWorkState();
  const activity = snapshot.activity as ActivityRow[];
  const history = new Map<string, ActivityRow[]>();
  for (const row of activity) {
    const rows = history.get(row.item);
    if (rows) rows.push(row);
    else history.set(row.item, [row]);
  }
  for (const f of snapshot.files) state.files.set(`${f.project}/${f.path}`, f);
  for (const item of snapshot.items) {
    const held = { ...item, history: history.get(item.id) ?? [] };
    state.items.set(item.id, held);
    state.keys.set(item.key, item.id);
    // The indexes are derived, not stored: rebuilt in creation order, each item ordered by its create
    // record's sequence (the first row of its history), as the fold orders it.
    indexCreated(state.index, held, held.history[0]?.seq ?? 0);
    for (const comment of held.comments) indexCommented(state.index, held, comment);
  }
  for (const [k, v] of snapshot.counters) state.counters.set(k, v);
  for (const op of snapshot.ops) state.ops.set(op.op_id, op);
  for (const [k, v] of snapshot.everKeys) state.everKeys.set(k, v);
  for (const [k, v] of snapshot.lastChange) state.lastChange.set(k, v);
  for (const p of snapshot.people) {
    const person: PersonState = {
      ...p,
      read: new Set(p.read),
      snoozed: new Map(p.snoozed),
      views: new Map(p.views.map((v) => [v.id, v])),
    };
    state.people.set(p.handle, person);
  }
  const r = snapshot.retention;
  const retention: RetentionState = {
    ...r,
    holders: new Map(r.holders.map((h) => [h.name, h])),
    ops: new Map(r.ops.map((o) => [o.op_id, o])),
  };
  return { ...state, activity: new ActivityLog(activity), retention, seq: snapshot.seq };
}

/** The small record naming one stored snapshot: read first, its chunks checked against it. */
export const SnapshotManifest = z.object({
  version: z.number().int(),
  generation: z.number().int().positive(),
  seq: z.number().int().nonnegative(),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  chunks: z.number().int().positive(),
  at: z.string(),
  by: z.string(),
});
export type SnapshotManifest = z.infer<typeof SnapshotManifest>;
