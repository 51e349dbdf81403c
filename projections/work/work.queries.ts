/**
 * Reads of the work state for `/work/{id}` and `/work/projects`: pure functions of the folded state and
 * the active document's projects, so every node answers them alike. The listing (`/work`) is the
 * schema's (schema/work/item.list.ts), which the `work_list` tool reads too.
 */
import {
  itemByRef,
  itemRow,
  itemVersion,
  priorityRank,
  statusGroups,
  type StatusGroup,
  type WorkItem,
  type WorkProject,
  type WorkState,
} from '../../schema/index.js';

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
