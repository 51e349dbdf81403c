/**
 * A work item's editable fields and the change bodies the API and the seat tools send (ops/work-tracker.md
 * "Writes"). A handle names a seat, agent or human; a reference to another item is its key or its id.
 */
import { z } from 'zod';
import { priorities, workStatuses } from './statuses.js';
import {
  cutForQuote,
  hasControlOrLoneSurrogate,
  hasNulOrLoneSurrogate,
  isOpId,
  ITEM_TITLE_MAX,
  PROJECT_KEY,
} from '../text-grammars.js';

export const OpId = z.string().refine(isOpId, 'at most 128 bytes of visible ASCII');

// A person is named by a seat handle in any case (`Ada` is `ada`), on writes as on reads; records hold it lower-case.
const handle = z
  .string()
  .overwrite((name) => name.toLowerCase())
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'a seat handle');
/** The longest item (or view) reference a write carries: a key, a UUID or a `KEY:layout` fit well within. */
export const ITEM_REF_MAX = 80;
const itemRef = z.string().min(1).max(ITEM_REF_MAX);

/** A reference as a detail quotes it: a long one is cut, so a refusal does not echo kilobytes back. */
export const quotedRef = (ref: string): string => JSON.stringify(cutForQuote(ref));

/** Why a read or a write of an item `ref` names is 404 `not_found`: one wording on every route. */
export const noWorkItem = (ref: string): string => `no work item ${quotedRef(ref)}`;

/**
 * What a write may send, as the records need not hold it (so a log written before still folds whole):
 * a name or a line of text (a label, a checklist entry, a view's name) has no control character or lone
 * surrogate, as a title; a body (a description, a comment, a text field) keeps tabs and line breaks but
 * has no NUL and no lone surrogate.
 */
export const lineText = () =>
  z.string().refine((s) => !hasControlOrLoneSurrogate(s), 'no control characters or lone surrogates');
export const bodyText = () =>
  z.string().refine((s) => !hasNulOrLoneSurrogate(s), 'no NUL or lone surrogates');

export const LinkKind = z.enum(['blocks', 'blocked_by', 'relates', 'duplicates', 'parent', 'child']);
export const Link = z.object({ kind: LinkKind, item: itemRef });
export type Link = z.infer<typeof Link>;

export const ChecklistEntry = z.object({
  id: z.string().min(1).max(40),
  text: z.string().min(1).max(500),
  done: z.boolean().default(false),
  /** Whom the entry is asked of (their my-work `checklist_items`). */
  assignee: handle.nullable().default(null),
});
export type ChecklistEntry = z.infer<typeof ChecklistEntry>;

/** A real calendar day `YYYY-MM-DD` (the shape alone lets 2027-02-30 and 2027-13-01 through). */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const FieldValue = z.union([z.string().max(500), z.number(), z.boolean(), z.null()]);

/**
 * Custom field values by name. A record drops a `__proto__` key JSON.parse made its own before any key
 * check runs, so it is looked for in the input: refused as any unknown field is, never silently dropped.
 */
const CustomFieldValues = z
  .unknown()
  .superRefine((value, ctx) => {
    if (typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__'))
      ctx.addIssue({ code: 'custom', path: ['__proto__'], message: 'no custom field is named __proto__' });
  })
  .pipe(z.record(z.string(), FieldValue));

/** Everything a create may set and an update may change. */
export const ItemFields = z.object({
  title: z.string().trim().min(1).max(ITEM_TITLE_MAX),
  description: z.string().max(65_536),
  type: z.string().min(1).max(40),
  priority: z.enum(priorities),
  assignees: z.array(handle).max(20),
  watchers: z.array(handle).max(100),
  labels: z.array(z.string().min(1).max(60)).max(30),
  links: z.array(Link).max(100),
  checklist: z.array(ChecklistEntry).max(100),
  fields: CustomFieldValues,
  /** Someone asked of (`asked_of_me`): a question waiting on them. */
  asked_of: z.array(handle).max(20),
  due_date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD')
    .nullable(),
});
export type ItemFields = z.infer<typeof ItemFields>;

/** `ItemFields` as a write sends them (`lineText`, `bodyText`); the title is `ItemTitle`, below. */
const ItemWriteFields = ItemFields.extend({
  description: bodyText().max(65_536),
  labels: z.array(lineText().min(1).max(60)).max(30),
  checklist: z
    .array(ChecklistEntry.extend({ id: lineText().min(1).max(40), text: lineText().min(1).max(500) }))
    .max(100),
  fields: CustomFieldValues.superRefine((values, ctx) => {
    for (const [name, value] of Object.entries(values))
      if (typeof value === 'string' && hasNulOrLoneSurrogate(value))
        ctx.addIssue({ code: 'custom', path: [name], message: 'no NUL or lone surrogates' });
  }),
});

/**
 * A title as a write sends it: one line of text, as a page title (no control character, C0, DEL or C1,
 * and no lone surrogate, anywhere: checked before the ends are trimmed). Only writes are held to it: the
 * records keep `ItemFields.title`, so a log written before still folds whole.
 */
export const ItemTitle = z
  .string()
  .refine((s) => !hasControlOrLoneSurrogate(s), 'no control characters or lone surrogates')
  .trim()
  .min(1)
  .max(ITEM_TITLE_MAX);

export const defaultFields = (): Omit<ItemFields, 'title'> => ({
  description: '',
  type: 'task',
  priority: 'none',
  assignees: [],
  watchers: [],
  labels: [],
  links: [],
  checklist: [],
  fields: {},
  asked_of: [],
  due_date: null,
});

/** `POST /work`: the project and at least a title; `op_id` may also come as `?op_id=`. */
export const CreateItemBody = ItemWriteFields.partial()
  .extend({
    // Keys are upper-case by their grammar, so any case names the project (as item keys do).
    project: z
      .string()
      .overwrite((key) => key.toUpperCase())
      .regex(PROJECT_KEY, 'a project key'),
    title: ItemTitle,
    status: z.enum(workStatuses).optional(),
    op_id: z.string().optional(),
  })
  .strict();
export type CreateItemBody = z.infer<typeof CreateItemBody>;

/** `PATCH /work/{id}`: the fields to replace (lists are replaced whole). */
export const UpdateItemBody = ItemWriteFields.partial()
  .extend({ title: ItemTitle.optional(), op_id: z.string().optional() })
  .strict();
export type UpdateItemBody = z.infer<typeof UpdateItemBody>;

/** `POST /work/{id}/move`. */
export const MoveItemBody = z.object({ to: z.enum(workStatuses), op_id: z.string().optional() }).strict();

/** `POST /work/{id}/comments`. */
export const CommentBody = z
  .object({ body: bodyText().trim().min(1).max(65_536), op_id: z.string().optional() })
  .strict();

/** Spec "Limits": a purge reason is at most 600 bytes on the notice line. */
export const PURGE_REASON_MAX_BYTES = 600;

/** `POST /work/{id}/purge` (also accepted as query parameters). */
export const PurgeBody = z
  .object({
    confirm: z.string().min(1),
    project: z.string().min(1),
    reason: z.string().trim().min(1),
    op_id: z.string().optional(),
  })
  .strict();
