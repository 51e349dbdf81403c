/**
 * A person's own state as the reads show it (ops/work-tracker.md "Inbox state and views"): inbox flags
 * per row, their priorities, saved views with item counts and the views they pinned. Pure functions of
 * the folded state, the document's projects and the reading node's clock (a snooze ends at `until`).
 */
import {
  builtinViewId,
  formatPosition,
  generationAt,
  type PersonState,
  type RetentionState,
  type SavedView,
  listItems,
  type WorkItem,
  type WorkState,
} from '../../schema/index.js';

/** Whether the row at `seq` is unread and snoozed for `person` at `now` (epoch ms). */
export function inboxFlags(person: PersonState | undefined, seq: number, now: number) {
  const read = person !== undefined && (seq <= person.read_through || person.read.has(seq));
  const until = person?.snoozed.get(seq);
  const snoozed = until !== undefined && Date.parse(until) > now;
  return { unread: !read, snoozed, snoozed_until: snoozed ? until : null };
}

/** The person's own priorities as items (purged ones dropped), or null when they set none. */
export function setPriorities(state: WorkState, handle: string): WorkItem[] | null {
  const ids = state.people.get(handle)?.priorities ?? null;
  if (ids === null) return null;
  return ids.flatMap((id) => {
    const item = state.items.get(id);
    return item ? [item] : [];
  });
}

/** How many items a saved view lists now. */
function countOf(state: WorkState, view: SavedView): number {
  const f = view.filter;
  return listItems(state, {
    project: f.project,
    statuses: f.status,
    groups: f.group,
    assignee: f.assignee,
    type: f.type,
    priority: f.priority,
    label: f.label,
    q: f.q,
    limit: 1,
    after: null,
  }).total;
}

const savedRow = (person: PersonState, view: SavedView) => ({
  ...view,
  kind: 'saved',
  container: view.filter.project,
  pinned: person.pinned.includes(view.id),
});

/** `/work/views/saved`: the viewer's saved views in creation order, with `counts` (view id -> items). */
export function savedViews(state: WorkState, viewer: string | null, counts: boolean) {
  const person = viewer === null ? undefined : state.people.get(viewer);
  const views = person ? [...person.views.values()] : [];
  return {
    viewer,
    views: person ? views.map((v) => savedRow(person, v)) : [],
    ...(counts ? { counts: Object.fromEntries(views.map((v) => [v.id, countOf(state, v)])) } : {}),
  };
}

/** Built-in view rows of the projects, as `builtinViews` shapes them, given by the caller. */
type BuiltinRow = { readonly id: string } & Record<string, unknown>;

/** The person's pinned views resolved, in pin order; a pin whose view is gone is left out. */
export function pinnedViews(
  state: WorkState,
  handle: string,
  builtins: (project: string) => readonly BuiltinRow[],
) {
  const person = state.people.get(handle);
  if (!person) return [];
  return person.pinned.flatMap((id) => {
    const builtin = builtinViewId(id);
    if (builtin) {
      const row = builtins(builtin.project).find((v) => v.id === id);
      return row ? [{ ...row, kind: 'builtin', pinned: true }] : [];
    }
    const view = person.views.get(id);
    return view ? [savedRow(person, view)] : [];
  });
}

/** The person's inbox state as `/work/people/{handle}` shows it (active snoozes only). */
export function inboxState(person: PersonState | undefined, now: number, retention: RetentionState) {
  // A row's id is its position in the generation it was stored in (ops/work-tracker.md "Retention").
  const id = (seq: number): string => formatPosition(seq, generationAt(retention, seq));
  if (!person) return { read_through: null, read: [], snoozed: [] };
  return {
    read_through: person.read_through > 0 ? id(person.read_through) : null,
    read: [...person.read].sort((a, b) => a - b).map(id),
    snoozed: [...person.snoozed]
      .filter(([, until]) => Date.parse(until) > now)
      .sort(([a], [b]) => a - b)
      .map(([seq, until]) => ({ id: id(seq), until })),
  };
}
