/**
 * What the work stream holds (SVC_WORK, `svc.work.p.<PROJECT>`; a person's own state under
 * `svc.work.u.<handle>`, person.ts): one record per change, each carrying the
 * `op_id` that made it, so a retried change is recognised and answered with its first outcome. A project's
 * records share one subject: the writer appends with the subject's expected last sequence, so the log
 * order decides the key counter (ops/work-tracker.md "Keys").
 */
import { z } from 'zod';
import { Comment } from './comment.js';
import { ItemFields } from './item.js';
import { PersonChanged } from './person.js';
import { workStatuses } from './statuses.js';

const base = {
  op_id: z.string(),
  /** RFC 3339, the writer's clock. */
  at: z.string(),
  /** Who made the change: a seat handle, an operator token id, `anonymous`. */
  actor: z.string(),
  /** The turn that made it, when a seat's tool did. */
  turn_id: z.string().nullable().default(null),
  id: z.string(),
};

export const ItemCreated = z.object({
  kind: z.literal('item.created'),
  ...base,
  project: z.string(),
  key: z.string(),
  number: z.number().int().positive(),
  status: z.enum(workStatuses),
  fields: ItemFields,
});

export const ItemUpdated = z.object({
  kind: z.literal('item.updated'),
  ...base,
  changes: ItemFields.partial(),
});

export const ItemMoved = z.object({
  kind: z.literal('item.moved'),
  ...base,
  from: z.enum(workStatuses),
  to: z.enum(workStatuses),
});

export const ItemCommented = z.object({ kind: z.literal('item.commented'), ...base, comment: Comment });

export const ItemPurged = z.object({ kind: z.literal('item.purged'), ...base, reason: z.string() });

/** A project file written (`id` is `<project>/<path>`); its bytes are in the file store by `sha256`. */
export const FilePut = z.object({
  kind: z.literal('file.put'),
  ...base,
  project: z.string(),
  path: z.string(),
  version: z.number().int().positive(),
  size: z.number().int().nonnegative(),
  content_type: z.string(),
  sha256: z.string(),
});

export const FileRemoved = z.object({
  kind: z.literal('file.removed'),
  ...base,
  project: z.string(),
  path: z.string(),
  version: z.number().int().positive(),
});

export const WorkRecord = z.discriminatedUnion('kind', [
  ItemCreated,
  ItemUpdated,
  ItemMoved,
  ItemCommented,
  ItemPurged,
  FilePut,
  FileRemoved,
  PersonChanged,
]);
export type WorkRecord = z.infer<typeof WorkRecord>;
export type WorkRecordKind = WorkRecord['kind'];

/** The kinds an activity row (`/work/activity`, an item's history) has: the item records'. */
export const activityKinds = [
  ItemCreated.shape.kind.value,
  ItemUpdated.shape.kind.value,
  ItemMoved.shape.kind.value,
  ItemCommented.shape.kind.value,
  ItemPurged.shape.kind.value,
] as const;
