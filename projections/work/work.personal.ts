/**
 * The personal reads: `/work/my-work` (seven lists), `/work/people/{handle}` and `/work/views`. The lists
 * are derived from the items; a person's own written state (priorities they set, read and snoozed rows,
 * pins) comes from work.person.ts, and a person who never wrote any reads `held: false`
 * (ops/work-tracker.md "Personal routes", "Inbox state and views").
 */
import {
  groupOf,
  inCreationOrder,
  itemByRef,
  itemRow,
  type WorkItem,
  type WorkProject,
  type WorkState,
} from '../../schema/index.js';
import { inboxPage } from './work.activity.js';
import { inboxState, pinnedViews, setPriorities } from './work.person.js';
import { byPriority } from './work.queries.js';

type WorkIndexRefs = WorkState['index']['assignees'];

const RECENT_MS = 7 * 24 * 3600 * 1000;
const LIST_MAX = 50;

const open = (item: WorkItem): boolean =>
  groupOf[item.status] === 'todo' || groupOf[item.status] === 'active';
const finished = (item: WorkItem | null): boolean =>
  item !== null && (groupOf[item.status] === 'done' || groupOf[item.status] === 'closed');

/** The items of the index's sets for `handle`, in creation order (the order a scan of the items has). */
function itemsOf(handle: string, index: WorkState['index'], ...maps: ReadonlyArray<WorkIndexRefs>) {
  const items = new Set<WorkItem>();
  for (const map of maps) for (const item of map.get(handle) ?? []) items.add(item);
  return inCreationOrder(index, items);
}

export function myWork(state: WorkState, handle: string, now: Date) {
  const recent = now.getTime() - RECENT_MS;
  const index = state.index;
  const mine = itemsOf(handle, index, index.assignees)
    .filter((i) => open(i) && i.fields.assignees.includes(handle))
    .sort(byPriority);
  const checklist = itemsOf(handle, index, index.checklist).flatMap((item) =>
    open(item)
      ? item.fields.checklist
          .filter((e) => !e.done && e.assignee === handle)
          .map((e) => ({ item: item.key, id: item.id, title: item.fields.title, entry: e }))
      : [],
  );
  const collaborating = itemsOf(handle, index, index.creators, index.commenters).filter(
    (i) =>
      open(i) &&
      !i.fields.assignees.includes(handle) &&
      (i.created_by === handle || i.comments.some((c) => c.author === handle)),
  );
  const watching = itemsOf(handle, index, index.watchers)
    .filter((i) => i.fields.watchers.includes(handle) && Date.parse(i.updated_at) >= recent)
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  const unblocked = mine.filter((item) => {
    const blockers = item.fields.links
      .filter((l) => l.kind === 'blocked_by')
      .map((l) => itemByRef(state, l.item));
    return (
      blockers.length > 0 &&
      blockers.every(finished) &&
      blockers.some((b) => b !== null && Date.parse(b.updated_at) >= recent)
    );
  });
  const rows = (list: WorkItem[]) => list.slice(0, LIST_MAX).map(itemRow);
  const set = setPriorities(state, handle);
  // The person's own order once they set one; else their open urgent and high items.
  const priorities =
    set ?? mine.filter((i) => i.fields.priority === 'urgent' || i.fields.priority === 'high');
  const asked = itemsOf(handle, index, index.askedOf).filter(
    (i) => open(i) && i.fields.asked_of.includes(handle),
  );
  return {
    handle,
    priorities: rows(priorities),
    priorities_source: set === null ? 'derived' : 'set',
    assigned: rows(mine),
    asked_of_me: rows(asked),
    checklist_items: checklist.slice(0, LIST_MAX),
    collaborating: rows(collaborating),
    watching_recent: rows(watching),
    unblocked_recent: rows(unblocked),
    // Each list shows its first LIST_MAX rows; these count them all, so a long list is not taken as whole.
    totals: {
      priorities: priorities.length,
      assigned: mine.length,
      asked_of_me: asked.length,
      checklist_items: checklist.length,
      collaborating: collaborating.length,
      watching_recent: watching.length,
      unblocked_recent: unblocked.length,
    },
  };
}

export function personState(state: WorkState, handle: string, projects: readonly WorkProject[], now: Date) {
  const work = myWork(state, handle, now);
  const person = state.people.get(handle);
  const unread = inboxPage(state, {
    handle,
    unread: true,
    primaryOnly: false,
    snoozed: 'exclude',
    reasons: [],
    limit: 1,
    before: null,
    since: 0,
    now,
  }).unread;
  return {
    handle,
    held: person !== undefined,
    updated_at: person?.updated_at ?? null,
    inbox: { ...inboxState(person, now.getTime(), state.retention), unread },
    priorities: work.priorities,
    priorities_total: work.totals.priorities,
    priorities_source: work.priorities_source,
    pinned_views: pinnedViews(state, handle, (key) => builtinViews(projects, key, handle)),
    saved_views: person?.views.size ?? 0,
  };
}

/** The views every project offers (a board by status, a list, the viewer's own items). */
export function builtinViews(
  projects: readonly WorkProject[],
  container: string | null,
  viewer: string | null,
  pinned: readonly string[] = [],
) {
  const views = projects
    .filter((p) => !p.archived && (container === null || p.key === container))
    .flatMap((p) => [
      {
        id: `${p.key}:board`,
        container: p.key,
        name: `${p.name} board`,
        layout: 'board',
        filter: { project: p.key },
      },
      {
        id: `${p.key}:list`,
        container: p.key,
        name: `${p.name} list`,
        layout: 'list',
        filter: { project: p.key },
      },
      ...(viewer
        ? [
            {
              id: `${p.key}:mine`,
              container: p.key,
              name: 'My items',
              layout: 'list',
              filter: { project: p.key, assignee: viewer },
            },
          ]
        : []),
    ]);
  return views.map((v) => ({ ...v, pinned: pinned.includes(v.id) }));
}
