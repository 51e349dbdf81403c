/**
 * Reads of the knowledge base (`GET /pages`, `GET /pages/{id}`, `/containers`) over the projection's
 * state and the containers the org chart declares (ops/knowledge-base.md).
 */
import type { Container, ServiceCaller } from '../../schema/index.js';
import { PageLimits } from '../../schema/index.js';
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

export const PAGE_LIST_DEFAULT = 50;
export const PAGE_LIST_MAX = 200;
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

/** Containers declared, then any that only still hold pages (`declared: false`), with live page counts. */
export function containerRows(state: PagesState, declared: readonly Container[]) {
  const rows = declared.map((c) => ({ ...c, declared: true, pages: state.counts.get(c.key) ?? 0 }));
  const known = new Set(declared.map((c) => c.key));
  for (const [key, count] of [...state.counts].sort(([a], [b]) => a.localeCompare(b)))
    if (!known.has(key) && count > 0)
      rows.push({ key, name: key, kind: 'org', unit: null, declared: false, pages: count });
  return rows;
}

/** The container a key names: exact first, else the one matching it case-insensitively. */
export function findContainer(keys: readonly string[], wanted: string): string | null {
  if (keys.includes(wanted)) return wanted;
  const lower = wanted.toLowerCase();
  return keys.find((k) => k.toLowerCase() === lower) ?? null;
}

/** A page by id, or by `CONTAINER/Title` (title compared ignoring case and whitespace runs). */
export function resolvePage(state: PagesState, ref: string, containers: readonly string[]): Page | null {
  const byId = state.pages.get(ref);
  if (byId) return byId;
  const slash = ref.indexOf('/');
  if (slash <= 0) return null;
  const keys = [...new Set([...containers, ...state.counts.keys()])];
  const container = findContainer(keys, ref.slice(0, slash));
  if (container === null) return null;
  const id = state.titles.get(titleSlot(container, ref.slice(slash + 1)));
  return id === undefined ? null : (state.pages.get(id) ?? null);
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

const byTitle = (a: Page, b: Page): number =>
  a.container.localeCompare(b.container) ||
  a.title.toLowerCase().localeCompare(b.title.toLowerCase()) ||
  a.id.localeCompare(b.id);

export interface PageListQuery {
  readonly container?: string;
  /** A page id, or `root` for the container's top level. */
  readonly parent?: string;
  readonly q?: string;
  readonly limit: number;
  /** Position in the ordering (an opaque cursor to callers). */
  readonly offset: number;
}

export interface PageList {
  readonly pages: Array<PageRow & { score?: number; snippet?: string }>;
  readonly total: number | null;
  readonly next_cursor: string | null;
}

const underParent = (page: Page, parent: string | undefined): boolean =>
  parent === undefined || (parent === 'root' ? page.parent_id === null : page.parent_id === parent);

/** Listing in title order, or search hits best first (BM25) when `q` is given. */
export function listPages(state: PagesState, query: PageListQuery): PageList {
  const next = (more: boolean): string | null => (more ? String(query.offset + query.limit) : null);
  if (query.q !== undefined) {
    // The index narrows by container itself; a parent narrows the ranked hits, so more are scanned.
    const narrowed = query.parent !== undefined;
    const found = state.index.search(queryTerms(query.q), {
      ...(query.container === undefined ? {} : { container: query.container }),
      limit: narrowed ? PAGE_SEARCH_SCAN : query.limit,
      offset: narrowed ? 0 : query.offset,
    });
    const hits = found.hits
      .map((h) => ({ hit: h, page: state.pages.get(h.page_id) }))
      .filter((x): x is { hit: typeof x.hit; page: Page } => x.page !== undefined)
      .filter((x) => underParent(x.page, query.parent));
    const shown = !narrowed ? hits : hits.slice(query.offset, query.offset + query.limit);
    const more = !narrowed ? found.more : hits.length > query.offset + query.limit;
    return {
      pages: shown.map((x) => ({ ...pageRow(state, x.page), score: x.hit.score, snippet: x.hit.snippet })),
      total: null,
      next_cursor: next(more),
    };
  }
  const all = [...state.pages.values()]
    .filter((p) => query.container === undefined || p.container === query.container)
    .filter((p) => underParent(p, query.parent))
    .sort(byTitle);
  const shown = all.slice(query.offset, query.offset + query.limit);
  return {
    pages: shown.map((p) => pageRow(state, p)),
    total: all.length,
    next_cursor: next(all.length > query.offset + query.limit),
  };
}
