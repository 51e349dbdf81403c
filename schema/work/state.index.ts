/**
 * Indexes of the work state, kept by the fold (state.ts) so the common reads touch the items that can
 * match instead of every item: per project the items in creation order (the listing's order), per
 * status, and per person the items that name them (assignee, asked, watcher, checklist entry,
 * creator, commenter, @mention). They are derived from the items alone, so a replay rebuilds them as the
 * live fold kept them. A read intersects by filtering the smallest candidate set with its full predicate,
 * so its answer is the one a scan of every item gives (test/projections/work/work.index.*.property.unit.test.ts).
 */
import type { Comment } from './comment.js';
import { CreationLists } from './creation-lists.js';
import { mentionsIn } from './mentions.js';
import type { ItemFields } from './item.js';
import { groupOf, type StatusGroup, type WorkStatus } from './statuses.js';

/** A project's items per status group (`/work/projects`' `task_counts`). */
type GroupCounts = Record<StatusGroup, number>;

/** What the index reads of an item (state.ts `WorkItem`, the `T` of the index). */
export interface Indexed {
  readonly id: string;
  readonly project: string;
  readonly status: WorkStatus;
  readonly fields: ItemFields;
  readonly created_by: string;
  readonly comments: readonly Comment[];
}

/** Key -> the items it names (the items themselves: a read then looks nothing up by id). */
type Refs<T> = Map<string, Set<T>>;

export interface WorkIndex<T extends Indexed> {
  /**
   * Item -> the sequence of its create record: the listing's order (newest first is the highest), the
   * same whether the state was folded from the first record or started from a snapshot.
   */
  readonly ordinal: Map<T, number>;
  /** Every item, oldest first (a page of the newest is the tail). */
  readonly all: T[];
  /** Items per project, oldest first. */
  readonly byProject: Map<string, T[]>;
  /** What `all` and `byProject` read: a purge leaves them in O(1) (creation-lists.ts). */
  readonly lists: CreationLists<T>;
  /**
   * Per project, its items per status group: kept as items are created, moved and purged, so the
   * project list reads each project's counts without counting its items. A project with no items has none.
   */
  readonly counts: Map<string, GroupCounts>;
  /** Items per status (a group is the union of its statuses). */
  readonly byStatus: Refs<T>;
  readonly assignees: Refs<T>;
  readonly askedOf: Refs<T>;
  readonly watchers: Refs<T>;
  /** Handle -> items with a checklist entry assigned to them. */
  readonly checklist: Refs<T>;
  readonly creators: Refs<T>;
  readonly commenters: Refs<T>;
  /** Handle a comment mentions (mentions.ts, the one reader) -> items. */
  readonly mentions: Refs<T>;
}

export function emptyWorkIndex<T extends Indexed>(): WorkIndex<T> {
  const lists = new CreationLists<T>();
  return {
    ordinal: new Map(),
    get all() {
      return lists.all();
    },
    get byProject() {
      return lists.byProject();
    },
    lists,
    counts: new Map(),
    byStatus: new Map(),
    assignees: new Map(),
    askedOf: new Map(),
    watchers: new Map(),
    checklist: new Map(),
    creators: new Map(),
    commenters: new Map(),
    mentions: new Map(),
  };
}

function add<T>(map: Refs<T>, key: string, item: T): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(item);
}

function drop<T>(map: Refs<T>, key: string, item: T): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(item);
  if (set.size === 0) map.delete(key);
}

function fieldKeys(fields: ItemFields) {
  return {
    assignees: fields.assignees,
    askedOf: fields.asked_of,
    watchers: fields.watchers,
    checklist: fields.checklist.flatMap((e) => (e.assignee === null ? [] : [e.assignee])),
  } as const;
}

/** Indexes the item's editable fields (or, with `drop`, takes them out). */
export function indexFields<T extends Indexed>(index: WorkIndex<T>, item: T, remove = false): void {
  const op = remove ? drop : add;
  const keys = fieldKeys(item.fields);
  for (const name of ['assignees', 'askedOf', 'watchers', 'checklist'] as const)
    for (const handle of keys[name]) op(index[name], handle, item);
}

/** Counts `item` (as it stands) in or out of its project's group counts. */
function count<T extends Indexed>(index: WorkIndex<T>, item: T, by: 1 | -1): void {
  let counts = index.counts.get(item.project);
  if (!counts) index.counts.set(item.project, (counts = { todo: 0, active: 0, done: 0, closed: 0 }));
  counts[groupOf[item.status]] += by;
  if (counts.todo + counts.active + counts.done + counts.closed === 0) index.counts.delete(item.project);
}

/** Indexes an item created by the record at `seq` (items are indexed in creation order). */
export function indexCreated<T extends Indexed>(index: WorkIndex<T>, item: T, seq: number): void {
  index.ordinal.set(item, seq);
  index.lists.push(item);
  add(index.byStatus, item.status, item);
  count(index, item, 1);
  add(index.creators, item.created_by, item);
  indexFields(index, item);
}

/** Indexes `item` moving to `to` (called before the item's status changes). */
export function indexMoved<T extends Indexed>(index: WorkIndex<T>, item: T, to: WorkStatus): void {
  drop(index.byStatus, item.status, item);
  add(index.byStatus, to, item);
  const counts = index.counts.get(item.project);
  if (counts) {
    counts[groupOf[item.status]] -= 1;
    counts[groupOf[to]] += 1;
  }
}

export function indexCommented<T extends Indexed>(index: WorkIndex<T>, item: T, comment: Comment): void {
  add(index.commenters, comment.author, item);
  for (const word of mentionsIn(comment.body)) add(index.mentions, word, item);
}

export function indexPurged<T extends Indexed>(index: WorkIndex<T>, item: T): void {
  index.lists.remove(item);
  index.ordinal.delete(item);
  drop(index.byStatus, item.status, item);
  count(index, item, -1);
  drop(index.creators, item.created_by, item);
  indexFields(index, item, true);
  for (const comment of item.comments) {
    drop(index.commenters, comment.author, item);
    for (const word of mentionsIn(comment.body)) drop(index.mentions, word, item);
  }
}

const HANDLE = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Items with a comment that mentions `handle` (mentions.ts), or null when the handle is not of the shape
 * a mention is indexed by (the caller then scans).
 */
export function mentionedItems<T extends Indexed>(index: WorkIndex<T>, handle: string): Set<T> | null {
  if (!HANDLE.test(handle)) return null;
  return new Set(index.mentions.get(handle));
}

/** Room for a candidate's position under its ordinal in one float64 key (ordinal * ROOM + position). */
const ROOM = 2 ** 22;

/**
 * `items` (distinct, held) oldest first. Each is keyed by its ordinal and its position packed in one number,
 * so a numeric sort of a Float64Array orders them with no comparator call (an item count or a sequence too
 * large to pack exactly falls back to a comparator).
 */
export function inCreationOrder<T extends Indexed>(index: WorkIndex<T>, items: Iterable<T>): T[] {
  const list = [...items];
  const ordinals = list.map((item) => index.ordinal.get(item) ?? 0);
  if (list.length >= ROOM || ordinals.some((o) => o * ROOM >= Number.MAX_SAFE_INTEGER))
    return list
      .map((item, k) => [ordinals[k]!, item] as const)
      .sort(([a], [b]) => a - b)
      .map(([, item]) => item);
  const keys = new Float64Array(list.length);
  for (let k = 0; k < list.length; k++) keys[k] = ordinals[k]! * ROOM + k;
  keys.sort();
  const out: T[] = [];
  for (const key of keys) out.push(list[key % ROOM]!);
  return out;
}
