/**
 * The item listing `GET /work` and the `work_list` tool answer (ops/work-tracker.md "Reads"): a pure
 * function of the folded state, so every node, and every caller, reads one list in one order.
 */
import { encodeCursor, ListOrder, type ListPosition } from '../list-cursor.js';
import { inCreationOrder } from './state.index.js';
import type { WorkItem, WorkState } from './state.js';
import { groupOf, workStatuses } from './statuses.js';

export function itemRow(item: WorkItem) {
  const f = item.fields;
  return {
    id: item.id,
    key: item.key,
    project: item.project,
    title: f.title,
    type: f.type,
    status: item.status,
    group: groupOf[item.status],
    priority: f.priority,
    assignees: f.assignees,
    labels: f.labels,
    due_date: f.due_date,
    comments: item.comments.length,
    created_at: item.created_at,
    created_by: item.created_by,
    updated_at: item.updated_at,
  };
}

export interface ItemQuery {
  readonly project: string | null;
  readonly statuses: readonly string[];
  readonly groups: readonly string[];
  readonly assignee: string | null;
  readonly type: string | null;
  readonly priority: string | null;
  readonly label: string | null;
  readonly q: string | null;
  readonly limit: number;
  /** The last row of the previous page (its `next`): this page starts strictly after it. */
  readonly after: ListPosition<number> | null;
}

function matches(item: WorkItem, query: ItemQuery, needle: string | null): boolean {
  const f = item.fields;
  if (query.project !== null && item.project !== query.project) return false;
  if (query.statuses.length > 0 && !query.statuses.includes(item.status)) return false;
  if (query.groups.length > 0 && !query.groups.includes(groupOf[item.status])) return false;
  if (query.assignee !== null && !f.assignees.includes(query.assignee)) return false;
  if (query.type !== null && f.type !== query.type) return false;
  if (query.priority !== null && f.priority !== query.priority) return false;
  if (query.label !== null && !f.labels.includes(query.label)) return false;
  return needle === null || `${item.key} ${f.title} ${f.description}`.toLowerCase().includes(needle);
}

/** Item ids that hold every match: oldest first when `ordered`; `exact` when each of them matches. */
interface Candidates {
  readonly size: number;
  /** Disjoint sets whose union holds the candidates. */
  readonly sources: ReadonlyArray<Iterable<WorkItem>>;
  readonly ordered: readonly WorkItem[] | null;
  readonly exact: boolean;
}

const noItems: readonly WorkItem[] = [];
/** How much more an id of an unordered set costs than one of an ordered list (the sort, the lookups). */
const UNORDERED_COST = 1.5;

/** The smallest of the index's sets that narrows `query` (schema/work/state.index.ts). */
function candidates(state: WorkState, query: ItemQuery): Candidates {
  const index = state.index;
  const other =
    query.statuses.length > 0 ||
    query.groups.length > 0 ||
    query.assignee !== null ||
    query.type !== null ||
    query.priority !== null ||
    query.label !== null ||
    query.q !== null;
  const all = index.all;
  const options: Candidates[] = [
    { size: all.length, sources: [all], ordered: all, exact: !other && query.project === null },
  ];
  if (query.project !== null) {
    const list = index.byProject.get(query.project) ?? noItems;
    options.push({ size: list.length, sources: [list], ordered: list, exact: !other });
  }
  if (query.assignee !== null) {
    const set = index.assignees.get(query.assignee) ?? new Set<WorkItem>();
    options.push({ size: set.size, sources: [set], ordered: null, exact: false });
  }
  if (query.statuses.length > 0 || query.groups.length > 0) {
    // Statuses partition the items: the union of those the filter allows holds every match.
    const statuses = workStatuses.filter(
      (s) =>
        (query.statuses.length === 0 || query.statuses.includes(s)) &&
        (query.groups.length === 0 || query.groups.includes(groupOf[s])),
    );
    const sets = statuses.flatMap((s) => {
      const set = index.byStatus.get(s);
      return set ? [set] : [];
    });
    options.push({
      size: sets.reduce((n, set) => n + set.size, 0),
      sources: sets,
      ordered: null,
      exact: false,
    });
  }
  // An unordered set is sorted after filtering: it wins only when clearly smaller than an ordered list.
  const cost = (c: Candidates): number => (c.ordered ? c.size : c.size * UNORDERED_COST);
  return options.reduce((a, b) => (cost(b) < cost(a) ? b : a));
}

/** Whether `item` (created by the record at `ordinal`) comes after the cursor, newest first. */
const pastCursor = (ordinal: number, item: WorkItem, after: ListPosition<number> | null): boolean =>
  after === null || ordinal < after.key || (ordinal === after.key && item.id < after.id);

/** How many items of `list` (oldest first) come before the cursor's row: those a newest-first page may show. */
function beforeCursor(index: WorkState['index'], list: readonly WorkItem[], after: ListPosition<number>) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const item = list[mid]!;
    if (pastCursor(index.ordinal.get(item) ?? 0, item, after)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The filtered listing, newest first (creation order reversed), with each project's last key number.
 * Narrowed by the smallest index set, then filtered in full, so it answers what a scan of every item does.
 * A page starts strictly after the cursor's item (by its create record's sequence), wherever items were
 * created or purged meanwhile.
 */
export function listItems(state: WorkState, query: ItemQuery) {
  const needle = query.q?.toLowerCase() ?? null;
  const index = state.index;
  const pick = candidates(state, query);
  let total: number;
  let page: WorkItem[];
  let more: boolean;
  if (pick.exact && pick.ordered) {
    // The ordered list is the answer: the page is read off below the cursor by binary search.
    const list = pick.ordered;
    total = list.length;
    const end = query.after === null ? total : beforeCursor(index, list, query.after);
    page = [];
    for (let i = end - 1; i >= Math.max(0, end - query.limit); i--) page.push(list[i]!);
    more = end - page.length > 0;
  } else {
    // Only the matches past the cursor are ordered; every match counts in `total`.
    const rest: WorkItem[] = [];
    total = 0;
    for (const source of pick.sources)
      for (const item of source)
        if (matches(item, query, needle)) {
          total += 1;
          // A first page looks no ordinal up.
          if (query.after === null || pastCursor(index.ordinal.get(item) ?? 0, item, query.after))
            rest.push(item);
        }
    const newest = (pick.ordered === null ? inCreationOrder(index, rest) : rest).reverse();
    page = newest.slice(0, query.limit);
    more = rest.length > page.length;
  }
  const last = page.at(-1);
  return {
    items: page.map(itemRow),
    total,
    next:
      more && last
        ? encodeCursor(ListOrder.WorkNewest, { key: index.ordinal.get(last) ?? 0, id: last.id })
        : null,
    last_numbers: Object.fromEntries(state.counters),
  };
}
