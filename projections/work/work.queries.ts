/**
 * Reads of the work state for `/work`, `/work/{id}` and `/work/projects`: pure functions of the folded
 * state and the active document's projects, so every node answers them alike.
 */
import {
  encodeCursor,
  groupOf,
  inCreationOrder,
  ListOrder,
  itemByRef,
  itemVersion,
  priorityRank,
  statusGroups,
  type ListPosition,
  type StatusGroup,
  type WorkItem,
  type WorkProject,
  type WorkState,
  workStatuses,
} from '../../schema/index.js';

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

/** One item in full: description, thread (oldest first), history and links with their keys. */
export function itemDetail(state: WorkState, item: WorkItem) {
  const f = item.fields;
  return {
    ...itemRow(item),
    version: itemVersion(item),
    description: f.description,
    watchers: f.watchers,
    asked_of: f.asked_of,
    checklist: f.checklist,
    fields: f.fields,
    links: f.links.map((link) => {
      const target = itemByRef(state, link.item);
      return {
        kind: link.kind,
        // Records written before links were stored by key may hold the reference as it was typed.
        item: target?.key ?? link.item,
        id: target?.id ?? null,
        key: target?.key ?? null,
        status: target?.status ?? null,
      };
    }),
    thread: item.comments,
    history: item.history,
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

type Counts = Record<StatusGroup, number>;

/**
 * One project's counts as the fold keeps them (state.index.ts `counts`), no pass over its items; a copy,
 * as the kept ones change with the next record.
 */
export const projectCounts = (state: WorkState, key: string): Counts => ({
  todo: 0,
  active: 0,
  done: 0,
  closed: 0,
  ...state.index.counts.get(key),
});

export const projectSortKeys = [
  'key',
  'name',
  'unit',
  'todo',
  'active',
  'done',
  'closed',
  'last_change',
  'target',
] as const;

export interface ProjectQuery {
  readonly q: string | null;
  readonly unit: string | null;
  readonly archived: 'false' | 'only' | 'true';
  /** One of projectSortKeys, optionally with a leading `-`. */
  readonly sort: string;
  readonly limit: number;
}

export function projectRow(state: WorkState, project: WorkProject, counts: Counts) {
  return {
    key: project.key,
    name: project.name,
    unit: project.unit,
    lead: project.lead,
    description: project.description,
    archived: project.archived,
    target_date: project.target_date,
    last_change: state.lastChange.get(project.key) ?? null,
    last_number: state.counters.get(project.key) ?? 0,
    task_counts: counts,
  };
}

type ProjectRow = ReturnType<typeof projectRow>;

const sortValue = (row: ProjectRow, key: string): string | number => {
  if ((statusGroups as readonly string[]).includes(key)) return row.task_counts[key as StatusGroup];
  if (key === 'target') return row.target_date ?? '';
  if (key === 'last_change') return row.last_change ?? '';
  return (row as unknown as Record<string, string | null>)[key] ?? '';
};

export function projectRows(state: WorkState, projects: readonly WorkProject[], query: ProjectQuery) {
  const needle = query.q?.toLowerCase() ?? null;
  const census = {
    active: projects.filter((p) => !p.archived).length,
    archived: projects.filter((p) => p.archived).length,
  };
  const chosen = projects.filter((p) => {
    if (query.archived === 'false' && p.archived) return false;
    if (query.archived === 'only' && !p.archived) return false;
    if (query.unit !== null && p.unit !== query.unit) return false;
    return needle === null || `${p.key} ${p.name}`.toLowerCase().includes(needle);
  });
  const descending = query.sort.startsWith('-');
  const key = descending ? query.sort.slice(1) : query.sort;
  const rows = chosen.map((p) => projectRow(state, p, projectCounts(state, p.key)));
  rows.sort((a, b) => {
    // A project with no target date has no place on the timeline: after every dated one, either way.
    if (key === 'target' && (a.target_date === null) !== (b.target_date === null))
      return a.target_date === null ? 1 : -1;
    const x = sortValue(a, key);
    const y = sortValue(b, key);
    const order = x < y ? -1 : x > y ? 1 : a.key.localeCompare(b.key);
    return descending ? -order : order;
  });
  return {
    projects: rows.slice(0, query.limit),
    total: rows.length,
    census,
    complete: rows.length <= query.limit,
  };
}

/** Open items first by priority: the rank my-work's `priorities` and the boards sort by. */
export const byPriority = (a: WorkItem, b: WorkItem): number =>
  priorityRank[a.fields.priority] - priorityRank[b.fields.priority] ||
  b.updated_at.localeCompare(a.updated_at);
