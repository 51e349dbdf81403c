/**
 * A work item's editable fields and the change bodies the API and the seat tools send (ops/work-tracker.md
 * "Writes"). A handle names a seat, agent or human; a reference to another item is its key or its id.
 */
import { z } from 'zod';
import { priorities, workStatuses } from './statuses.js';
import {
  breaksLine,
  cutForQuote,
  hasNulOrLoneSurrogate,
  hasVisibleCharacter,
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
 * a name or a line of text (a label, a checklist entry, a view's name) is one line (`breaksLine`: no control
 * character, U+2028/U+2029 or lone surrogate), as a title; a body (a description, a comment, a text field)
 * keeps tabs and line breaks but has no NUL and no lone surrogate.
 */
export const lineText = () => z.string().refine((s) => !breaksLine(s), ONE_LINE);
/** What a write breaking `breaksLine` is told. */
export const ONE_LINE = 'no control characters, U+2028/U+2029 line breaks or lone surrogates';

/**
 * A trimmed title with something in it but nothing visible (a zero-width space, a soft hyphen, a mark
 * alone) is refused as the empty title is (`min(1)`'s own issue), so both read alike on every route.
 */
export const visibleTitle = (title: string, ctx: z.RefinementCtx): void => {
  if (title.length > 0 && !hasVisibleCharacter(title))
    ctx.addIssue({ code: 'too_small', origin: 'string', minimum: 1, inclusive: true, input: title });
};
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
 * no U+2028/U+2029 and no lone surrogate, anywhere: checked before the ends are trimmed), with at least one
 * visible character. Only writes are held to it: the records keep `ItemFields.title`, so a log written
 * before still folds whole.
 */
export const ItemTitle = z
  .string()
  // Not one line is the one problem: trimmed, a NEL alone would also read as empty.
  .refine((s) => !breaksLine(s), { message: ONE_LINE, abort: true })
  .trim()
  .min(1)
  .superRefine(visibleTitle)
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

/** A field an item may be without: null (a merge patch's "remove") leaves it as a create leaving it out does. */
const clearable = <T extends z.ZodType>(field: T, empty: () => z.output<T>) =>
  field.nullable().transform((value): z.output<T> => value ?? empty());

/**
 * `PATCH /work/{id}`, a JSON merge patch (RFC 7396): the fields to replace (lists and `fields` are replaced
 * whole), and null removes one an item may be without. The route refuses null for those it always has.
 */
export const UpdateItemBody = ItemWriteFields.extend({
  description: clearable(ItemWriteFields.shape.description, () => defaultFields().description),
  priority: clearable(ItemWriteFields.shape.priority, () => defaultFields().priority),
  assignees: clearable(ItemWriteFields.shape.assignees, () => defaultFields().assignees),
  watchers: clearable(ItemWriteFields.shape.watchers, () => defaultFields().watchers),
  asked_of: clearable(ItemWriteFields.shape.asked_of, () => defaultFields().asked_of),
  labels: clearable(ItemWriteFields.shape.labels, () => defaultFields().labels),
  links: clearable(ItemWriteFields.shape.links, () => defaultFields().links),
  checklist: clearable(ItemWriteFields.shape.checklist, () => defaultFields().checklist),
  fields: clearable(ItemWriteFields.shape.fields, () => defaultFields().fields),
})
  .partial()
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
