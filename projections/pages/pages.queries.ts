/**
 * Reads of the knowledge base (`GET /pages`, `GET /pages/{id}`, `/containers`) over the projection's
 * state and the containers the org chart declares (ops/knowledge-base.md).
 */
import { createHash } from 'node:crypto';
import type { Container, ListPosition, ServiceCaller } from '../../schema/index.js';
import { canonicalId, encodeCursor, ListOrder, PageLimits } from '../../schema/index.js';
import { firstInOrder } from '../query/first.js';
import { queryTerms } from './pages.index.js';
import { titleSlot, type Page, type PagesState } from './pages.state.js';

export interface PageRow {
  readonly id: string;
  readonly container: string;
  readonly title: string;
  readonly parent_id: string | null;
  readonly version: number;
  readonly updated_at: string;
  readonly updated_by: ServiceCaller;
  readonly children: number;
  readonly comments: number;
}

/** Hits ranked before a `parent` filter narrows them. */
const PAGE_SEARCH_SCAN = 2_000;

export function pageRow(state: PagesState, page: Page): PageRow {
  return {
    id: page.id,
    container: page.container,
    title: page.title,
    parent_id: page.parent_id,
    version: page.version,
    updated_at: page.updated_at,
    updated_by: page.updated_by,
    children: state.children.get(page.id)?.size ?? 0,
    comments: page.comments.length,
  };
}

/**
 * Containers declared, then any that only still hold pages (`declared: false`), with live page counts.
 * An undeclared one has no `kind` or `unit` (null): no unit and no `knowledge.wiki_spaces` entry names it.
 */
export function containerRows(state: PagesState, declared: readonly Container[]) {
  const rows: Array<
    Omit<Container, 'kind'> & { kind: Container['kind'] | null; declared: boolean; pages: number }
  > = declared.map((c) => ({ ...c, declared: true, pages: state.counts.get(c.key) ?? 0 }));
  const known = new Set(declared.map((c) => c.key));
  for (const [key, count] of [...state.counts].sort(([a], [b]) => a.localeCompare(b)))
    if (!known.has(key) && count > 0)
      rows.push({ key, name: key, kind: null, unit: null, declared: false, pages: count });
  return rows;
}

/** The container a key names: exact first, else the one matching it case-insensitively. */
export function findContainer(keys: readonly string[], wanted: string): string | null {
  if (keys.includes(wanted)) return wanted;
  const lower = wanted.toLowerCase();
  return keys.find((k) => k.toLowerCase() === lower) ?? null;
}

/**
 * A page by id (in any case), or by `CONTAINER/Title` (title compared ignoring case and whitespace runs,
 * in either Unicode form: writes store titles composed, a page stored before that keeps its own form).
 */
export function resolvePage(state: PagesState, ref: string, containers: readonly string[]): Page | null {
  const byId = state.pages.get(canonicalId(ref));
  if (byId) return byId;
  const slash = ref.indexOf('/');
  if (slash <= 0) return null;
  const keys = [...new Set([...containers, ...state.counts.keys()])];
  const container = findContainer(keys, ref.slice(0, slash));
  if (container === null) return null;
  const title = ref.slice(slash + 1);
  const id =
    state.titles.get(titleSlot(container, title.normalize('NFC'))) ??
    state.titles.get(titleSlot(container, title));
  return id === undefined ? null : (state.pages.get(id) ?? null);
}

/**
 * The page `ref` names for a write under `opId`. A ref naming the page that op_id was first decided on as
 * it was then (its id, or the `CONTAINER/Title` it had) names it still, renamed or deleted since, so the
 * retry is answered its first outcome; any other ref is the live page it resolves to, or null.
 */
export function writeTarget(
  state: PagesState,
  ref: string,
  opId: string,
  containers: readonly string[],
): string | null {
  const first = state.targets.get(opId);
  if (first && (canonicalId(ref) === first.page_id || (first.slot !== null && sameSlot(ref, first.slot))))
    return first.page_id;
  return resolvePage(state, ref, containers)?.id ?? null;
}

/** True when `CONTAINER/Title` names `slot` (container ignoring case, title as titles compare). */
function sameSlot(ref: string, slot: string): boolean {
  const slash = ref.indexOf('/');
  if (slash <= 0) return false;
  const container = slot.slice(0, slot.indexOf('\u0000'));
  const title = ref.slice(slash + 1);
  return (
    findContainer([container], ref.slice(0, slash)) !== null &&
    (titleSlot(container, title) === slot || titleSlot(container, title.normalize('NFC')) === slot)
  );
}

/** Root first: the pages above `page`. */
export function breadcrumb(state: PagesState, page: Page): Array<{ id: string; title: string }> {
  const trail: Array<{ id: string; title: string }> = [];
  const seen = new Set<string>([page.id]);
  for (let id = page.parent_id; id !== null && !seen.has(id);) {
    const above = state.pages.get(id);
    if (!above) break;
    seen.add(id);
    trail.unshift({ id: above.id, title: above.title });
    id = above.parent_id;
  }
  return trail;
}

export function pageDetail(state: PagesState, page: Page) {
  const children = [...(state.children.get(page.id) ?? [])]
    .map((id) => state.pages.get(id))
    .filter((p): p is Page => p !== undefined)
    .sort(byTitle)
    .map((p) => ({ id: p.id, title: p.title }));
  return {
    id: page.id,
    container: page.container,
    title: page.title,
    body: page.body,
    parent_id: page.parent_id,
    breadcrumb: breadcrumb(state, page),
    children,
    version: page.version,
    created_at: page.created_at,
    created_by: page.created_by,
    updated_at: page.updated_at,
    updated_by: page.updated_by,
    revisions_total: page.revisions.length,
    revisions: page.revisions.slice(-PageLimits.revisionsShown).reverse(),
    comments: page.comments,
  };
}
export type PageDetail = ReturnType<typeof pageDetail>;

/** Where a page sorts in title order: container, then title ignoring case (then its id). */
type TitleKey = [container: string, title: string];
const titleOrderKey = (page: Page): TitleKey => [page.container, page.title.toLowerCase()];

function compareTitleKeys(a: TitleKey, aId: string, b: TitleKey, bId: string): number {
  return a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]) || aId.localeCompare(bId);
}

const byTitle = (a: Page, b: Page): number =>
  compareTitleKeys(titleOrderKey(a), a.id, titleOrderKey(b), b.id);

/** What a search cursor is bound to: its words (a cursor pages only the ranking it was made in). */
export function searchFingerprint(q: string): string {
  const words = queryTerms(q).map((w) => w.toLowerCase());
  return createHash('sha256').update(JSON.stringify(words)).digest('base64url').slice(0, 16);
}

/** Where a search page ended: in its word hits (BM25 score), or with `part: 'meaning'` in its meaning hits. */
export interface SearchPosition extends ListPosition<number> {
  readonly part?: 'meaning';
}

export interface PageListQuery {
  readonly container?: string;
  /** A page id, or `root` for the container's top level. */
  readonly parent?: string;
  readonly q?: string;
  readonly limit: number;
  /** The last row of the previous page (its `next_cursor`): title order without `q`, relevance with. */
  readonly after?: ListPosition<TitleKey> | SearchPosition;
}

/** A search row: how it matched (every word, or by meaning), its score and a snippet. */
export interface SearchRow extends PageRow {
  /** BM25 (higher is better) for `words`; cosine similarity for `meaning`. */
  readonly score: number;
  readonly snippet: string;
  readonly match: 'words' | 'meaning';
}

export interface PageList {
  readonly pages: Array<PageRow | SearchRow>;
  readonly total: number | null;
  readonly next_cursor: string | null;
}

export const underParent = (page: Page, parent: string | undefined): boolean =>
  parent === undefined || (parent === 'root' ? page.parent_id === null : page.parent_id === parent);

/** The word hits of a search page: rows best first, and where the next page starts (null: no more hits). */
export function wordHits(
  state: PagesState,
  q: string,
  query: PageListQuery,
): { rows: SearchRow[]; next: ListPosition<number> | null } {
  // The index narrows by container itself; a parent narrows the ranked hits, so more are scanned.
  const narrowed = query.parent !== undefined;
  const after = typeof query.after?.key === 'number' ? { score: query.after.key, id: query.after.id } : null;
  const found = state.index.search(queryTerms(q), {
    ...(query.container === undefined ? {} : { container: query.container }),
    limit: narrowed ? PAGE_SEARCH_SCAN : query.limit,
    ...(after === null ? {} : { after }),
  });
  const hits = found.hits
    .map((h) => ({ hit: h, page: state.pages.get(h.page_id) }))
    .filter((x): x is { hit: typeof x.hit; page: Page } => x.page !== undefined)
    .filter((x) => underParent(x.page, query.parent));
  const shown = hits.slice(0, query.limit);
  // Past the scanned hits there may be more under the parent: the next page goes on from the last scanned.
  const last = hits.length > query.limit ? shown.at(-1)?.hit : found.more ? found.hits.at(-1) : undefined;
  return {
    rows: shown.map((x) => ({
      ...pageRow(state, x.page),
      score: x.hit.score,
      snippet: x.hit.snippet,
      match: 'words' as const,
    })),
    next:
      last === undefined ? null : { key: last.score, id: last.page_id, fingerprint: searchFingerprint(q) },
  };
}

/**
 * Listing in title order, or search hits best first (BM25) when `q` is given: the words part alone (the
 * meaning part is pages.search.ts). A page starts strictly after the cursor's row, so pages written,
 * renamed or deleted meanwhile shift no other.
 */
export function listPages(state: PagesState, query: PageListQuery): PageList {
  if (query.q !== undefined) {
    // A cursor of the meaning part has nothing more by words.
    if ('part' in (query.after ?? {})) return { pages: [], total: null, next_cursor: null };
    const words = wordHits(state, query.q, query);
    return {
      pages: words.rows,
      total: null,
      next_cursor: words.next && encodeCursor(ListOrder.PagesRelevance, words.next),
    };
  }
  const after = Array.isArray(query.after?.key) ? { key: query.after.key, id: query.after.id } : null;
  const all = [...state.pages.values()]
    .filter((p) => query.container === undefined || p.container === query.container)
    .filter((p) => underParent(p, query.parent));
  // Only the pages past the cursor count for the page, and only the first of them (one more: is there a
  // next page?) are kept in order; every match counts in `total`.
  const rest =
    after === null
      ? all
      : all.filter((p) => compareTitleKeys(titleOrderKey(p), p.id, after.key, after.id) > 0);
  const first = firstInOrder(rest, query.limit + 1, (a, b) => byTitle(a, b) < 0);
  const shown = first.slice(0, query.limit);
  const last = shown.at(-1);
  return {
    pages: shown.map((p) => pageRow(state, p)),
    total: all.length,
    next_cursor:
      first.length > shown.length && last !== undefined
        ? encodeCursor(ListOrder.PagesTitle, { key: titleOrderKey(last), id: last.id })
        : null,
  };
}
