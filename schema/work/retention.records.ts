/**
 * The work log's retention (ops/work-tracker.md "Retention"): what the nodes and the operators record on
 * the work stream itself, under `svc.work.retention.*`, so the retention state is a fold of the same log
 * every node reads and a reanchor takes effect at one place in the order of the work records.
 *
 * - `svc.work.retention.ack.<node>`: a node's acknowledgement of the position its projection applied;
 * - `svc.work.retention.ops`: the operator gestures, appended one after another (the writer expects the
 *   subject's last sequence, as item writes do per project).
 */
import { z } from 'zod';
import { WorkRefused } from './write.js';

/** A holder's name: a node id, or what an operator acknowledges for (`backup`, `archive-2027`). */
export const HOLDER = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const holder = z
  .string()
  .regex(HOLDER, 'letters, digits, _ and - (at most 64), starting with a letter or digit');

/** What a reason may hold: one line of at most 600 bytes once whitespace runs are one space. */
export const RETENTION_REASON_MAX_BYTES = 600;
const reason = z
  .string()
  .transform((s) => s.replace(/\s+/g, ' ').trim())
  .refine((s) => Buffer.byteLength(s, 'utf8') <= RETENTION_REASON_MAX_BYTES, 'at most 600 bytes');

const base = { op_id: z.string(), at: z.string(), actor: z.string() };

/** A node's heartbeat: its projection has applied every record up to `seq` of `generation`. */
export const NodeAcked = z.object({
  kind: z.literal('retention.node_acked'),
  ...base,
  node: z.string(),
  generation: z.number().int().positive(),
  seq: z.number().int().nonnegative(),
});

export const HolderAcked = z.object({
  kind: z.literal('retention.acked'),
  ...base,
  holder: z.string(),
  generation: z.number().int().positive(),
  seq: z.number().int().nonnegative(),
  note: z.string().default(''),
});

export const HolderEvicted = z.object({
  kind: z.literal('retention.evicted'),
  ...base,
  holder: z.string(),
  reason: z.string(),
});

export const HolderReadmitted = z.object({
  kind: z.literal('retention.readmitted'),
  ...base,
  holder: z.string(),
});

const limit = z.number().int().positive().nullable();

export const CapacitySet = z.object({
  kind: z.literal('retention.capacity_set'),
  ...base,
  max_bytes: limit,
  max_records: limit,
  max_age_seconds: limit,
  /** Nodes trim on their own while the log is over its capacity (records written before it: false). */
  auto_trim: z.boolean().default(false),
});

export const MaintenanceOpened = z.object({
  kind: z.literal('retention.maintenance_opened'),
  ...base,
  /** Records below this sequence are the window's aim (the floor when it opened). */
  below: z.number().int().nonnegative(),
  participants: z.array(z.string()),
  reason: z.string(),
});

export const MaintenanceExcluded = z.object({
  kind: z.literal('retention.maintenance_excluded'),
  ...base,
  window: z.string(),
  holder: z.string(),
  reason: z.string(),
});

export const MaintenanceAbandoned = z.object({
  kind: z.literal('retention.maintenance_abandoned'),
  ...base,
  window: z.string(),
  reason: z.string(),
});

export const Reanchored = z.object({
  kind: z.literal('retention.reanchored'),
  ...base,
  generation: z.number().int().positive(),
  reason: z.string(),
});

/**
 * Records below `below` are removed from the log, a snapshot of the state folded up to `snapshot.seq`
 * (at least `below - 1`) standing for them; `removed` and `first_at` are what the log's size loses.
 */
export const Trimmed = z.object({
  kind: z.literal('retention.trimmed'),
  ...base,
  below: z.number().int().positive(),
  snapshot: z.object({
    seq: z.number().int().nonnegative(),
    generation: z.number().int().positive(),
    sha256: z.string(),
    size: z.number().int().nonnegative(),
  }),
  removed: z.object({ records: z.number().int().nonnegative(), bytes: z.number().int().nonnegative() }),
  /** When the oldest record kept was stored (null when none below the trim record is kept). */
  first_at: z.string().nullable(),
});

export const RetentionRecord = z.discriminatedUnion('kind', [
  NodeAcked,
  HolderAcked,
  HolderEvicted,
  HolderReadmitted,
  CapacitySet,
  MaintenanceOpened,
  MaintenanceExcluded,
  MaintenanceAbandoned,
  Reanchored,
  Trimmed,
]);
export type RetentionRecord = z.infer<typeof RetentionRecord>;
export type RetentionRecordKind = RetentionRecord['kind'];

/** The subject tail (after `svc.work.`) of retention records: acks per node, gestures on one subject. */
export const retentionSubjects = {
  ack: (node: string): string => `retention.ack.${node}`,
  ops: 'retention.ops',
  prefix: 'svc.work.retention.',
} as const;

const opId = z.string().optional();

/** `POST /work/retention/ack`: a holder has what it needs up to `position` (`SVC_WORK@<gen>:<seq>`). */
export const RetentionAckBody = z
  .object({ holder, position: z.string().min(1), note: reason.optional(), op_id: opId })
  .strict();
export const RetentionEvictBody = z.object({ reason: reason.optional(), op_id: opId }).strict();
export const RetentionReadmitBody = z.object({ op_id: opId }).strict();
/** Each limit a positive integer, or null for none; one at least must be named. */
export const RetentionCapacityBody = z
  .object({
    max_bytes: limit.optional(),
    max_records: limit.optional(),
    max_age_seconds: limit.optional(),
    auto_trim: z.boolean().optional(),
    op_id: opId,
  })
  .strict()
  .refine(
    (b) =>
      b.max_bytes !== undefined ||
      b.max_records !== undefined ||
      b.max_age_seconds !== undefined ||
      b.auto_trim !== undefined,
    'name at least one of max_bytes, max_records, max_age_seconds, auto_trim',
  );
export const MaintenanceOpenBody = z.object({ reason: reason.optional(), op_id: opId }).strict();
export const MaintenanceExcludeBody = z
  .object({ node: holder, reason: reason.optional(), op_id: opId })
  .strict();
export const MaintenanceAbandonBody = z.object({ reason: reason.optional(), op_id: opId }).strict();
/** `generation` is the one the operator read: a reanchor of a log that moved on meanwhile is refused. */
export const ReanchorBody = z
  .object({
    generation: z.number().int().positive(),
    reason: reason.refine((s) => s !== '', 'required'),
    op_id: opId,
  })
  .strict();
export const TrimBody = z.object({ op_id: opId }).strict();

/** One operator gesture as the routes send it to the work host (`svc.cmd.work.retention`). */
export const RetentionGesture = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('ack'),
    holder: z.string(),
    generation: z.number().int().positive(),
    seq: z.number().int().nonnegative(),
    note: z.string(),
  }),
  z.object({ kind: z.literal('evict'), holder: z.string(), reason: z.string() }),
  z.object({ kind: z.literal('readmit'), holder: z.string() }),
  z.object({
    kind: z.literal('capacity'),
    max_bytes: limit.optional(),
    max_records: limit.optional(),
    max_age_seconds: limit.optional(),
    auto_trim: z.boolean().optional(),
  }),
  z.object({ kind: z.literal('maintenance_open'), reason: z.string() }),
  z.object({ kind: z.literal('maintenance_exclude'), holder: z.string(), reason: z.string() }),
  z.object({ kind: z.literal('maintenance_abandon'), reason: z.string() }),
  z.object({ kind: z.literal('reanchor'), generation: z.number().int().positive(), reason: z.string() }),
  z.object({
    kind: z.literal('trim'),
    /** The share of each limit left free below it (automatic trims: 0.2); an operator's trim: none. */
    headroom: z.number().min(0).max(0.9).optional(),
  }),
]);
export type RetentionGesture = z.infer<typeof RetentionGesture>;

export const RetentionCommand = z.object({
  op_id: z.string(),
  actor: z.string().min(1),
  gesture: RetentionGesture,
});
export type RetentionCommand = z.infer<typeof RetentionCommand>;

export const RetentionReply = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('ok'),
    op_id: z.string(),
    kind: z.string(),
    seq: z.number(),
    position: z.string(),
    repeated: z.boolean(),
  }),
  WorkRefused,
]);
export type RetentionReply = z.infer<typeof RetentionReply>;
