/**
 * `/work/activity` and `/work/inbox`: pages of the change log. Positions are `<stream>@<generation>:<seq>`
 * (schema/work/position.ts); `since` and `cursor` both mean "after this position".
 */
import {
  encodeCursor,
  formatPosition,
  ListOrder,
  groupOf,
  mentionedItems,
  mentionsIn,
  type ActivityRow,
  type WorkItem,
  type WorkState,
} from '../../schema/index.js';
import { inboxFlags } from './work.person.js';

export interface ActivityQuery {
  /** Rows after this sequence (from `since` or `cursor`). */
  readonly after: number;
  readonly task: string | null;
  readonly project: string | null;
  readonly kinds: readonly string[];
  /** Rows by any of these actors (a seat handle, a token id); null: anyone. */
  readonly actors: readonly string[] | null;
  readonly assignee: string | null;
  readonly notified: string | null;
  readonly from: number | null;
  readonly to: number | null;
  readonly q: string | null;
  readonly limit: number;
}

/** Who a change concerns: the item's assignees, watchers, those asked, and those @mentioned. */
export function concerned(item: WorkItem | undefined, row: ActivityRow): Set<string> {
  const out = new Set<string>();
  if (!item) return out;
  for (const h of [...item.fields.assignees, ...item.fields.watchers, ...item.fields.asked_of]) out.add(h);
  if (row.comment) {
    const body = item.comments.find((c) => c.id === row.comment)?.body ?? '';
    for (const handle of mentionsIn(body)) out.add(handle);
  }
  out.delete(row.actor);
  return out;
}

const searchable = (item: WorkItem | undefined, row: ActivityRow): string =>
  [
    JSON.stringify(row.fields),
    row.comment ? (item?.comments.find((c) => c.id === row.comment)?.body ?? '') : '',
  ]
    .join(' ')
    .toLowerCase();

export function activityPage(state: WorkState, query: ActivityQuery) {
  const needle = query.q?.toLowerCase() ?? null;
  const rows: ActivityRow[] = [];
  const log = state.activity.rows();
  // Rows are in log order: find the first after the position by binary search.
  let lo = 0;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (log[mid]!.seq <= query.after) lo = mid + 1;
    else hi = mid;
  }
  let scanned = lo;
  for (; scanned < log.length && rows.length < query.limit; scanned++) {
    const row = log[scanned]!;
    const item = state.items.get(row.item);
    if (query.task !== null && row.item !== query.task) continue;
    if (query.project !== null && row.project !== query.project) continue;
    if (query.kinds.length > 0 && !query.kinds.includes(row.kind)) continue;
    if (query.actors !== null && !query.actors.includes(row.actor)) continue;
    if (query.assignee !== null && !item?.fields.assignees.includes(query.assignee)) continue;
    if (query.notified !== null && !concerned(item, row).has(query.notified)) continue;
    const at = Date.parse(row.at);
    if (query.from !== null && at < query.from) continue;
    if (query.to !== null && at > query.to) continue;
    if (needle !== null && !searchable(item, row).includes(needle)) continue;
    rows.push(row);
  }
  const exhausted = scanned >= log.length;
  const keys: Record<string, string> = {};
  for (const row of rows) keys[row.item] = state.everKeys.get(row.item) ?? row.item;
  const last = rows.at(-1);
  return {
    records: rows,
    keys,
    // In the log's current generation: a row's own position may be from before a reanchor.
    next: exhausted ? null : nextCursor(state, last?.seq ?? log[scanned - 1]?.seq),
    exhausted,
    head: state.seq,
  };
}

export const InboxReason = {
  Assigned: 'assigned',
  Asked: 'asked',
  Mentioned: 'mentioned',
  Watching: 'watching',
} as const;
const primaryReasons = new Set<string>([InboxReason.Assigned, InboxReason.Asked, InboxReason.Mentioned]);

export interface InboxQuery {
  readonly handle: string;
  readonly unread: boolean | null;
  readonly primaryOnly: boolean;
  readonly snoozed: 'exclude' | 'include' | 'only';
  readonly reasons: readonly string[];
  readonly limit: number;
  /** Rows older than this sequence (the last row of the previous page, its `next`). */
  readonly before: number | null;
  /** Rows after this sequence only. */
  readonly since: number;
  /** The reading node's clock: a snooze past its `until` no longer hides the row. */
  readonly now: Date;
}

function reasonOf(item: WorkItem, row: ActivityRow, handle: string): string | null {
  if (row.actor === handle) return null;
  const comment = row.comment ? item.comments.find((c) => c.id === row.comment) : undefined;
  if (comment && mentionsIn(comment.body).includes(handle)) return InboxReason.Mentioned;
  if (item.fields.assignees.includes(handle)) return InboxReason.Assigned;
  if (item.fields.asked_of.includes(handle)) return InboxReason.Asked;
  if (item.fields.watchers.includes(handle)) return InboxReason.Watching;
  return null;
}

/**
 * The rows of every item that may concern `handle` (assigned, asked, watching, or @mentioned in one of
 * its comments: the index's sets), newest first; the whole log for a handle a mention is not indexed by.
 * An item's history holds exactly its rows of the log, so the inbox reads the person's items, not the log.
 */
function inboxRows(state: WorkState, handle: string): readonly ActivityRow[] {
  const index = state.index;
  const mentioned = mentionedItems(index, handle);
  if (mentioned === null) return state.activity.rows().toReversed();
  const items = new Set(mentioned);
  for (const map of [index.assignees, index.askedOf, index.watchers])
    for (const item of map.get(handle) ?? []) items.add(item);
  const rows: ActivityRow[] = [];
  for (const item of items) for (const row of item.history) rows.push(row);
  return rows.sort((a, b) => b.seq - a.seq);
}

/**
 * Changes made by others to items that concern `handle`, newest first, each flagged `unread` and
 * `snoozed` from the person's own state (ops/work-tracker.md "Inbox state and views"). `unread` counts
 * every row of the inbox that is unread and not snoozed, whatever the filters.
 */
export function inboxPage(state: WorkState, query: InboxQuery) {
  const person = state.people.get(query.handle);
  const now = query.now.getTime();
  const rows: Array<
    {
      id: string;
      reason: string;
      unread: boolean;
      snoozed: boolean;
      snoozed_until: string | null;
      key: string;
      group: string;
    } & ActivityRow
  > = [];
  let unread = 0;
  let more = false;
  for (const row of inboxRows(state, query.handle)) {
    const item = state.items.get(row.item);
    if (!item) continue;
    const reason = reasonOf(item, row, query.handle);
    if (reason === null) continue;
    const flags = inboxFlags(person, row.seq, now);
    if (flags.unread && !flags.snoozed) unread += 1;
    if (row.seq <= query.since || more) continue;
    if (query.before !== null && row.seq >= query.before) continue;
    if (query.primaryOnly && !primaryReasons.has(reason)) continue;
    if (query.reasons.length > 0 && !query.reasons.includes(reason)) continue;
    if (query.unread !== null && flags.unread !== query.unread) continue;
    if (query.snoozed === 'exclude' ? flags.snoozed : query.snoozed === 'only' && !flags.snoozed) continue;
    if (rows.length === query.limit) {
      more = true;
      continue;
    }
    rows.push({ ...row, id: row.position, reason, ...flags, key: item.key, group: groupOf[item.status] });
  }
  return {
    held: person !== undefined,
    items: rows,
    next: more ? inboxCursor(rows.at(-1)!) : null,
    unread,
    head: formatPosition(state.seq, state.retention.generation),
  };
}

/** An inbox row is its own key: its sequence orders the inbox, its position names it. */
const inboxCursor = (row: ActivityRow): string =>
  encodeCursor(ListOrder.Inbox, { key: row.seq, id: row.position });

const nextCursor = (state: WorkState, seq: number | undefined): string | null =>
  seq === undefined ? null : formatPosition(seq, state.retention.generation);
