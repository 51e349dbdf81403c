/**
 * Folds one SVC_PAGES record: decides it against what the log holds before it (so the first of two
 * racing writers wins on every node alike) and records the outcome under its op_id. A record whose
 * op_id was already decided changes nothing: a retry is never applied twice.
 */
import { pageGesture, PageRecord, type PageOutcome, type PageRefusalCode } from '../../schema/index.js';
import { titleSlot, type Page, type PagesState } from './pages.state.js';

type Decided =
  | Omit<Extract<PageOutcome, { ok: true }>, 'seq' | 'type' | 'gesture'>
  | { refuse: PageRefusalCode; detail: string };

const refuse = (code: PageRefusalCode, detail: string): Decided => ({ refuse: code, detail });

function linkChild(state: PagesState, parent: string | null, child: string): void {
  if (parent === null) return;
  const set = state.children.get(parent) ?? new Set<string>();
  set.add(child);
  state.children.set(parent, set);
}

function unlinkChild(state: PagesState, parent: string | null, child: string): void {
  if (parent === null) return;
  const set = state.children.get(parent);
  set?.delete(child);
  if (set?.size === 0) state.children.delete(parent);
}

/** Null when `parent` may hold `page` (same container, exists, not the page or below it). */
function parentProblem(state: PagesState, container: string, parent: string, page?: string): Decided | null {
  const target = state.pages.get(parent);
  if (!target) return refuse('not_found', `no page ${parent} to place it under`);
  if (target.container !== container)
    return refuse(
      'page_parent_invalid',
      `page ${parent} is in container ${target.container}, not ${container}`,
    );
  for (
    let at: Page | undefined = target;
    at;
    at = at.parent_id === null ? undefined : state.pages.get(at.parent_id)
  )
    if (at.id === page)
      return refuse('page_parent_invalid', 'a page cannot move under itself or its own child');
  return null;
}

/** Names the page that holds the title as it is written (the sent one may differ in case and spacing). */
function titleTaken(state: PagesState, container: string, holder: string): Decided {
  const held = state.pages.get(holder)?.title;
  return refuse(
    'page_title_taken',
    held === undefined
      ? `${container} already has a page of this title`
      : `${container} already has a page titled "${held}" (titles are compared ignoring case and spacing)`,
  );
}

function create(state: PagesState, r: Extract<PageRecord, { type: 'page.create' }>): Decided {
  if (state.pages.has(r.page_id)) return refuse('page_conflict', `page id ${r.page_id} is taken`);
  const slot = titleSlot(r.container, r.title);
  const holder = state.titles.get(slot);
  if (holder !== undefined) return titleTaken(state, r.container, holder);
  if (r.parent_id !== null) {
    const problem = parentProblem(state, r.container, r.parent_id);
    if (problem) return problem;
  }
  const page: Page = {
    id: r.page_id,
    container: r.container,
    title: r.title,
    body: r.body,
    parent_id: r.parent_id,
    version: 1,
    created_at: r.at,
    created_by: r.by,
    updated_at: r.at,
    updated_by: r.by,
    revisions: [{ version: 1, at: r.at, by: r.by, op_id: r.op_id, changed: ['created'] }],
    comments: [],
  };
  state.pages.set(page.id, page);
  state.titles.set(slot, page.id);
  linkChild(state, page.parent_id, page.id);
  state.counts.set(page.container, (state.counts.get(page.container) ?? 0) + 1);
  state.index.upsert(page);
  return { ok: true, page_id: page.id, version: 1, comment_id: null };
}

function update(state: PagesState, r: Extract<PageRecord, { type: 'page.update' }>): Decided {
  const page = state.pages.get(r.page_id);
  if (!page) return refuse('not_found', `no page ${r.page_id}`);
  if (r.base_version !== undefined && r.base_version !== page.version)
    return refuse('page_conflict', `page is at version ${page.version}, not ${r.base_version}`);
  const changed: string[] = [];
  if (r.title !== undefined && r.title !== page.title) {
    const slot = titleSlot(page.container, r.title);
    const holder = state.titles.get(slot);
    if (holder !== undefined && holder !== page.id) return titleTaken(state, page.container, holder);
    changed.push('title');
  }
  if (r.parent_id !== undefined && r.parent_id !== page.parent_id) {
    if (r.parent_id !== null) {
      const problem = parentProblem(state, page.container, r.parent_id, page.id);
      if (problem) return problem;
    }
    changed.push('parent');
  }
  if (r.body !== undefined && r.body !== page.body) changed.push('body');
  if (changed.length === 0) return { ok: true, page_id: page.id, version: page.version, comment_id: null };
  if (changed.includes('title')) {
    state.titles.delete(titleSlot(page.container, page.title));
    page.title = r.title!;
    state.titles.set(titleSlot(page.container, page.title), page.id);
  }
  if (changed.includes('parent')) {
    unlinkChild(state, page.parent_id, page.id);
    page.parent_id = r.parent_id ?? null;
    linkChild(state, page.parent_id, page.id);
  }
  if (changed.includes('body')) page.body = r.body!;
  page.version += 1;
  page.updated_at = r.at;
  page.updated_by = r.by;
  page.revisions.push({ version: page.version, at: r.at, by: r.by, op_id: r.op_id, changed });
  state.index.upsert(page);
  return { ok: true, page_id: page.id, version: page.version, comment_id: null };
}

function remove(state: PagesState, r: Extract<PageRecord, { type: 'page.delete' }>): Decided {
  const page = state.pages.get(r.page_id);
  if (!page) return refuse('not_found', `no page ${r.page_id}`);
  // Decided here in log order, not at the route, so of a delete and an edit racing from one version on
  // two nodes only the first recorded wins.
  if (r.base_version !== undefined && r.base_version !== page.version)
    return refuse('page_conflict', `page is at version ${page.version}, not ${r.base_version}`);
  const kids = state.children.get(page.id)?.size ?? 0;
  if (kids > 0)
    return refuse('page_has_children', `page has ${kids} child page(s): move or delete them first`);
  state.pages.delete(page.id);
  state.titles.delete(titleSlot(page.container, page.title));
  unlinkChild(state, page.parent_id, page.id);
  state.counts.set(page.container, (state.counts.get(page.container) ?? 1) - 1);
  state.index.remove(page.id);
  return { ok: true, page_id: page.id, version: page.version, comment_id: null };
}

function comment(state: PagesState, r: Extract<PageRecord, { type: 'page.comment' }>): Decided {
  const page = state.pages.get(r.page_id);
  if (!page) return refuse('not_found', `no page ${r.page_id}`);
  if (r.base_version !== undefined && r.base_version !== page.version)
    return refuse('page_conflict', `page is at version ${page.version}, not ${r.base_version}`);
  page.comments.push({ id: r.comment_id, body: r.body, at: r.at, by: r.by });
  return { ok: true, page_id: page.id, version: page.version, comment_id: r.comment_id };
}

/** Folds one decoded record (anything not a well-formed record is skipped). */
export function applyPageRecord(state: PagesState, value: unknown, seq: number): void {
  const parsed = PageRecord.safeParse(value);
  if (!parsed.success) return;
  const r = parsed.data;
  if (state.outcomes.has(r.op_id)) return;
  if (r.type !== 'page.create') {
    const page = state.pages.get(r.page_id);
    state.targets.set(r.op_id, {
      page_id: r.page_id,
      slot: page ? titleSlot(page.container, page.title) : null,
    });
  }
  const decided =
    r.type === 'page.create'
      ? create(state, r)
      : r.type === 'page.update'
        ? update(state, r)
        : r.type === 'page.delete'
          ? remove(state, r)
          : comment(state, r);
  const gesture = pageGesture(r);
  state.outcomes.set(
    r.op_id,
    'refuse' in decided
      ? { ok: false, gesture, error: decided.refuse, detail: decided.detail, seq }
      : { ...decided, gesture, type: r.type, seq },
  );
}
