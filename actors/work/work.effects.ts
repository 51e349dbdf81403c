/**
 * What a work record sets off (ops/work-tracker.md "Events and wakes"), pure: the task events and the
 * newly assigned seats, derived from the record as the log holds it and the state folded past it. The
 * effects are a reaction to the log (work.effects.host.ts), not a tail of the write, so they are read from
 * the log again after a crash: everything they say must come from the record and the fold, never from the
 * writer's memory. The item as it stood around the record is the folded item wound back through its
 * history rows, whose field deltas carry every earlier value, so a later change does not alter what a
 * redelivered record sets off.
 */
import {
  groupOf,
  type ItemFields,
  type WorkItem,
  type WorkOutcome,
  type WorkRecord,
  type WorkState,
  mentionsIn,
} from '../../schema/index.js';
import type { TaskEvent } from './work.types.js';

type WorkStatus = WorkItem['status'];
type Comment = Extract<WorkRecord, { kind: 'item.commented' }>['comment'];
type HistoryRow = WorkItem['history'][number];

/** The item as it stood at one point of its history. */
interface ItemAt {
  readonly id: string;
  readonly key: string;
  readonly project: string;
  readonly status: WorkStatus;
  readonly fields: ItemFields;
}

export interface WorkEffects {
  /** The record's outcome as folded (its key and position). */
  readonly outcome: WorkOutcome;
  /** The item just after the record. */
  readonly item: ItemAt;
  readonly events: TaskEvent[];
  /** Handles newly assigned: agents are woken, humans skipped quietly. */
  readonly assigned: string[];
  /** A comment's record: the comment and whom it reaches (commentWakes decides whom it wakes). */
  readonly comment: CommentReach | null;
}

/** A comment and the seats it may reach, the author left out. */
export interface CommentReach {
  readonly comment: Comment;
  /** The item's assignees and watchers as they stood at the comment. */
  readonly followers: string[];
  /** Handles named with `@` in the body (`@ada`), in order, once each. */
  readonly mentioned: string[];
}

/** Records that can set something off: the item changes of a project and its comments (files and people never do). */
export const hasEffects = (record: WorkRecord): boolean =>
  record.kind === 'item.created' ||
  record.kind === 'item.moved' ||
  record.kind === 'item.updated' ||
  record.kind === 'item.commented';

export interface CommentWake {
  readonly handle: string;
  /** `mention` when named in the body, else `notification` (an assignee or watcher); both may be batched. */
  readonly kind: 'mention' | 'notification';
}

/**
 * The agent seats a comment wakes. A person's (or an operator token's) comment wakes the item's agent
 * assignees and watchers and every agent it names; an agent's comment wakes only the agents it names, so
 * two agents following one item do not wake each other back and forth on every reply.
 */
export function commentWakes(
  reach: CommentReach,
  seats: ReadonlyMap<string, 'agent' | 'human'>,
): CommentWake[] {
  const author = reach.comment.author;
  const isAgent = (h: string): boolean => h !== author && seats.get(h) === 'agent';
  const wakes: CommentWake[] = reach.mentioned.filter(isAgent).map((handle) => ({ handle, kind: 'mention' }));
  if (seats.get(author) === 'agent') return wakes;
  for (const handle of reach.followers)
    if (isAgent(handle) && !wakes.some((w) => w.handle === handle))
      wakes.push({ handle, kind: 'notification' });
  return wakes;
}

const ref = (item: ItemAt) => ({
  id: item.id,
  key: item.key,
  project: item.project,
  title: item.fields.title,
});

function assignmentEvents(
  item: ItemAt,
  actor: string,
  before: readonly string[],
): { events: TaskEvent[]; assigned: string[] } {
  const after = item.fields.assignees;
  const added = after.filter((h) => !before.includes(h));
  const removed = before.filter((h) => !after.includes(h));
  const events: TaskEvent[] = added.map((h) => ({
    type: 'TaskAssigned',
    summary: `${item.key} assigned to ${h}`,
    seat: h,
    payload: { item: ref(item), assignee: h, by: actor },
  }));
  if (removed.length > 0 && added.length > 0)
    events.push({
      type: 'TaskDelegated',
      summary: `${item.key} handed from ${removed.join(', ')} to ${added.join(', ')}`,
      seat: added[0]!,
      payload: { item: ref(item), from: removed, to: added, by: actor },
    });
  return { events, assigned: added };
}

/**
 * The item as it stood just after the record at `seq`, and just before it: `item` wound back. A record
 * without a history row of its own (a comment) changed no field: both are the item as it stood then.
 */
function around(item: WorkItem, seq: number, changes = true): { after: ItemAt; before: ItemAt } | null {
  const own = item.history.find((row) => row.seq === seq);
  if (!own && changes) return null;
  let status = item.status;
  let fields: Record<string, unknown> = { ...item.fields };
  const undo = (delta: HistoryRow['fields']): void => {
    for (const [name, change] of Object.entries(delta))
      if (name === 'status') status = change.from as WorkStatus;
      else fields = { ...fields, [name]: change.from };
  };
  for (const row of [...item.history].reverse()) if (row.seq > seq) undo(row.fields);
  const at = (): ItemAt => ({
    id: item.id,
    key: item.key,
    project: item.project,
    status,
    fields: fields as ItemFields,
  });
  const after = at();
  if (own) undo(own.fields);
  return { after, before: at() };
}

/**
 * The effects of `record`, stored at `seq`, against `state` folded at least that far; null when it sets
 * nothing off: a kind without effects, a record the fold skipped (its op_id answered by another
 * sequence), or an item purged since (its events would only repeat what the purge erased).
 */
export function workEffects(state: WorkState, record: WorkRecord, seq: number): WorkEffects | null {
  if (!hasEffects(record)) return null;
  const outcome = state.ops.get(record.op_id);
  if (outcome?.seq !== seq) return null;
  const item = state.items.get(record.id);
  const commented = record.kind === 'item.commented';
  const stood = item ? around(item, seq, !commented) : null;
  if (!stood) return null;
  const { after, before } = stood;
  const by = record.actor;
  if (commented) {
    const { comment } = record;
    const others = (handles: readonly string[]): string[] => handles.filter((h) => h !== comment.author);
    const followers = others([...new Set([...after.fields.assignees, ...after.fields.watchers])]);
    const reach = { comment, followers, mentioned: others(mentionsIn(comment.body)) };
    return { outcome, item: after, events: [], assigned: [], comment: reach };
  }
  if (record.kind === 'item.created') {
    const assignment = assignmentEvents(after, by, []);
    const created: TaskEvent = {
      type: 'TaskCreated',
      summary: `${after.key} created: ${after.fields.title}`,
      seat: null,
      payload: { item: ref(after), status: after.status, priority: after.fields.priority, by },
    };
    return { outcome, item: after, events: [created, ...assignment.events], assigned: assignment.assigned, comment: null }; // prettier-ignore
  }
  if (record.kind === 'item.updated') {
    const assignment =
      record.changes.assignees !== undefined
        ? assignmentEvents(after, by, before.fields.assignees)
        : { events: [], assigned: [] };
    return { outcome, item: after, ...assignment, comment: null };
  }
  if (record.kind !== 'item.moved') return null;
  const completes = groupOf[record.to] === 'done' && groupOf[record.from] !== 'done';
  const events: TaskEvent[] = completes
    ? [
        {
          type: 'TaskCompleted',
          summary: `${after.key} done: ${after.fields.title}`,
          seat: after.fields.assignees[0] ?? null,
          payload: { item: ref(after), from: record.from, by },
        },
      ]
    : [];
  return { outcome, item: after, events, assigned: [], comment: null };
}
