/**
 * The knowledge base's records on SVC_PAGES (ops/knowledge-base.md). Each record is an intent carrying
 * its `op_id`; the projection decides it in log order (a title taken, a stale version, a parent gone),
 * so two nodes never both win, and records the outcome under the `op_id`, so a retry is answered with
 * the first outcome instead of acting twice.
 */
import { z } from 'zod';
import { ServiceCaller } from '../service-tools.js';
import { breaksLine, hasNulOrLoneSurrogate, PAGE_TITLE_MAX } from '../text-grammars.js';
import { ONE_LINE, OpId, visibleTitle } from '../work/item.js';

/** Limits of the knowledge base (ops/knowledge-base.md "Limits"). */
export const PageLimits = {
  titleChars: PAGE_TITLE_MAX,
  bodyBytes: 512 * 1024,
  commentBytes: 64 * 1024,
  /** Revision entries a page read shows (newest first); the count is always whole. */
  revisionsShown: 50,
} as const;

const bytes = (max: number) => (s: string) => Buffer.byteLength(s, 'utf8') <= max;

/**
 * A title as a write sends it (a request body, a tool call, the write command): no control character
 * (C0, DEL, C1), no U+2028/U+2029 and no lone surrogate anywhere, checked before the ends are trimmed, and
 * at least one visible character (a zero-width space alone is as empty as a blank). Trimmed and composed
 * (NFC), so `é` sent as one code point or as `e` + U+0301 is one title, measured and stored alike. Not `.`
 * or `..`: a dot segment, which a URL parser removes (`%2E` too), so no path could name it as `CONTAINER/Title`.
 */
export const PageTitle = z
  .string()
  // Not one line is the one problem: trimmed, a NEL alone would also read as empty.
  .refine((s) => !breaksLine(s), { message: ONE_LINE, abort: true })
  .trim()
  .normalize('NFC')
  .min(1)
  .superRefine(visibleTitle)
  .max(PageLimits.titleChars)
  .refine(
    (s) => s !== '.' && s !== '..',
    'not . or .. (a dot segment: no URL can name the page as CONTAINER/Title)',
  );
/**
 * A title as a record holds it: the rule writes were held to when the log began, kept so that a record
 * stored then (a C1 character, a lone surrogate) still folds. New records pass `PageTitle` first.
 */
const StoredPageTitle = z
  .string()
  .trim()
  .min(1)
  .max(PageLimits.titleChars)
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'no control characters');
/** A body as a record holds it: the size alone, so a record stored before the text rule still folds. */
const StoredPageBody = z
  .string()
  .refine(bytes(PageLimits.bodyBytes), `at most ${PageLimits.bodyBytes} bytes`);
const StoredPageCommentBody = z
  .string()
  .trim()
  .min(1)
  .refine(bytes(PageLimits.commentBytes), `at most ${PageLimits.commentBytes} bytes`);
/**
 * A page body or a comment as a write sends it: tabs and line breaks kept, but no NUL and no lone
 * surrogate anywhere (the work tracker's bodies follow the same rule).
 */
const noNul = (s: string) => !hasNulOrLoneSurrogate(s);
export const PageBody = StoredPageBody.refine(noNul, 'no NUL or lone surrogates');
export const PageCommentBody = StoredPageCommentBody.refine(noNul, 'no NUL or lone surrogates');

/** A container key (a unit's wiki space or an org-wide space): no `/`, which separates `CONTAINER/Title`. */
export const ContainerKey = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.~-]{0,63}$/);

const base = {
  op_id: OpId,
  at: z.string(),
  by: ServiceCaller,
};

export const PageCreateRecord = z.object({
  ...base,
  type: z.literal('page.create'),
  page_id: z.string().min(1),
  container: ContainerKey,
  title: StoredPageTitle,
  body: StoredPageBody,
  parent_id: z.string().nullable(),
});

export const PageUpdateRecord = z.object({
  ...base,
  type: z.literal('page.update'),
  page_id: z.string().min(1),
  title: StoredPageTitle.optional(),
  body: StoredPageBody.optional(),
  /** Present: move under this page (null: to the container's top). */
  parent_id: z.string().nullable().optional(),
  /** Present: applies only while the page is at this version (else `page_conflict`). */
  base_version: z.number().int().positive().optional(),
});

export const PageDeleteRecord = z.object({
  ...base,
  type: z.literal('page.delete'),
  page_id: z.string().min(1),
  /** Present: applies only while the page is at this version (else `page_conflict`), as an update. */
  base_version: z.number().int().positive().optional(),
});

export const PageCommentRecord = z.object({
  ...base,
  type: z.literal('page.comment'),
  page_id: z.string().min(1),
  comment_id: z.string().min(1),
  body: StoredPageCommentBody,
  /** Present: taken only while the page is at this version (else `page_conflict`); a comment keeps it. */
  base_version: z.number().int().positive().optional(),
});

export const PageRecord = z.discriminatedUnion('type', [
  PageCreateRecord,
  PageUpdateRecord,
  PageDeleteRecord,
  PageCommentRecord,
]);
export type PageRecord = z.infer<typeof PageRecord>;
export type PageCreateRecord = z.infer<typeof PageCreateRecord>;
export type PageUpdateRecord = z.infer<typeof PageUpdateRecord>;

/**
 * Refusals the log decides (besides `no_container`, which the writer checks against the org chart and
 * does not record, so a retry once the container is declared creates the page, as the work tracker's
 * `no_project`; and `op_id_reused`: an op_id another gesture decided first).
 */
export const PageRefusalCode = z.enum([
  'not_found',
  'no_container',
  'op_id_reused',
  'page_title_taken',
  'page_conflict',
  'page_has_children',
  'page_parent_invalid',
]);
export type PageRefusalCode = z.infer<typeof PageRefusalCode>;

/**
 * What a write does and to what, as a retry must repeat it: `create <container>`, else `<kind> <page id>`
 * (`update 5f…`). The op_id of one gesture never answers for another.
 */
export function pageGesture(
  change:
    | { readonly type: 'create' | 'page.create'; readonly container: string }
    | { readonly type: string; readonly page_id: string },
): string {
  const kind = change.type.replace('page.', '');
  return 'container' in change ? `${kind} ${change.container}` : `${kind} ${change.page_id}`;
}

/** Why a write is refused `op_id_reused`: `gesture` (pageGesture) used its op_id first. */
export const opIdReusedDetail = (opId: string, gesture: string | undefined): string =>
  `op_id "${opId}" was used by another write (${gesture ?? 'another change'}); a new change needs a new op_id`;

/** What one op_id came to, as folded; `gesture` (pageGesture) is absent on outcomes folded by older nodes. */
export const PageOutcome = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    gesture: z.string().optional(),
    type: z.enum(['page.create', 'page.update', 'page.delete', 'page.comment']),
    page_id: z.string(),
    version: z.number().int(),
    comment_id: z.string().nullable(),
    /** Stream sequence of the record that decided it. */
    seq: z.number().int(),
  }),
  z.object({
    ok: z.literal(false),
    gesture: z.string().optional(),
    error: PageRefusalCode,
    detail: z.string(),
    seq: z.number().int(),
  }),
]);
export type PageOutcome = z.infer<typeof PageOutcome>;
