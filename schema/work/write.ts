/**
 * The one command that changes the tracker (`svc.cmd.work.write`): an `op_id`, who acts, and one change.
 * Any node's work host answers it; the reply is the change's outcome (or, for a retry, the first
 * outcome of that `op_id`) or a refusal naming its API error code.
 */
import { z } from 'zod';
import { ItemFields } from './item.js';
import { PersonAct } from './person.js';
import { workStatuses } from './statuses.js';

const itemRef = z.string().min(1).max(80);
/** `If-Match`: the item's version (`itemVersion`) the change was made against; absent: any. */
const ifMatch = z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional();

export const WorkChange = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('create'),
    project: z.string(),
    status: z.enum(workStatuses).optional(),
    fields: ItemFields.partial().extend({ title: ItemFields.shape.title }),
  }),
  z.object({ kind: z.literal('update'), item: itemRef, changes: ItemFields.partial(), if_match: ifMatch }),
  z.object({ kind: z.literal('move'), item: itemRef, to: z.enum(workStatuses), if_match: ifMatch }),
  z.object({
    kind: z.literal('comment'),
    item: itemRef,
    body: z.string().min(1).max(65_536),
    if_match: ifMatch,
  }),
  z.object({
    kind: z.literal('file_put'),
    project: z.string(),
    path: z.string(),
    content_type: z.string(),
    size: z.number().int().nonnegative(),
    sha256: z.string(),
    /** The version replaced (`If-Match`); null: the file must not exist yet. */
    if_match: z.number().int().nullable(),
  }),
  z.object({
    kind: z.literal('file_delete'),
    project: z.string(),
    path: z.string(),
    if_match: z.number().int().nullable(),
  }),
  z.object({
    kind: z.literal('purge'),
    item: itemRef,
    confirm: z.string(),
    project: z.string(),
    reason: z.string(),
    if_match: ifMatch,
  }),
  /** A person's own inbox state, priorities or views (person.ts); only a human seat has them. */
  z.object({ kind: z.literal('person'), handle: z.string().min(1).max(64), act: PersonAct }),
]);
export type WorkChange = z.infer<typeof WorkChange>;

export const WorkWrite = z.object({
  /** Checked by the host (a bad one is refused `op_id_invalid`), so any string travels. */
  op_id: z.string(),
  actor: z.string().min(1),
  turn_id: z.string().nullable().default(null),
  change: WorkChange,
});
export type WorkWrite = z.infer<typeof WorkWrite>;

/** A work command refused, by any of the writers (items, files, retention gestures). */
export const WorkRefused = z.object({
  outcome: z.literal('refused'),
  /** An API error code (`not_found`, `no_project`, `validation_error`, `op_id_invalid`, ...). */
  error: z.string(),
  detail: z.string(),
  problems: z
    .array(
      z.object({
        path: z.string(),
        message: z.string(),
        kind: z.enum(['missing', 'unknown_value', 'out_of_range', 'conflict', 'invalid']).optional(),
      }),
    )
    .default([]),
});
export type WorkRefused = z.infer<typeof WorkRefused>;

export const WorkWriteReply = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('ok'),
    op_id: z.string(),
    kind: z.string(),
    id: z.string(),
    key: z.string(),
    seq: z.number(),
    position: z.string(),
    /** True when the `op_id` had already been applied: this is its first outcome. */
    repeated: z.boolean(),
  }),
  WorkRefused,
]);
export type WorkWriteReply = z.infer<typeof WorkWriteReply>;
