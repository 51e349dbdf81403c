/**
 * The native work tracker's builtin tools (ops/work-tracker.md "Seat tools"): list, get, create, update,
 * comment and move (place an item in a status). A seat acts as itself; a change's `op_id` is derived from
 * the call, so a call retried after a cut changes the tracker once. Writes deliver to `work_tracker`:
 * the person waiting on an item sees the comment or the move there.
 */
import { z } from 'zod';
import {
  bodyText,
  defaultFields,
  groupOf,
  itemByRef,
  itemListIdentity,
  ItemListFilterArgs,
  ItemTitle,
  lineText,
  listItems,
  priorities,
  readItemFilters,
  readItemListCursor,
  sealItemListCursor,
  workStatuses,
  type ToolResult,
  type WorkChange,
  type WorkState,
  type WorkWrite,
  type WorkWriteReply,
} from '../../../schema/index.js';
import { defineBuiltin, textResult } from './builtin.define.js';
import { builtinCallId, type BuiltinPrecheck, type BuiltinTool, type ToolContext } from './builtin.types.js';
import { refusedResult } from './service.tool.js';

/** The tracker as the tools reach it; null while this node has none (tracker.backend not native). */
export interface WorkAccess {
  state(): WorkState;
  write(write: WorkWrite): Promise<WorkWriteReply>;
  until(seq: number, timeoutMs: number): Promise<boolean>;
}

const LIST_MAX = 50;
/** The latest comments `work_get` shows. */
const COMMENTS_SHOWN = 20;
/** How long a write waits for this node's view to show it before answering with what the bus told. */
const READ_BACK_MS = 10_000;
const item = z.string().trim().min(1).max(80).describe('The item: its key (ENG-12) or its id.');
// A seat is named in any case (`Ada` is `ada`) and kept lower-case, as on the REST writes; the pattern
// the inputSchema advertises admits any case, so a client checking arguments does not refuse `Ada` first.
const seat = z
  .string()
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9-]*$/, 'a seat handle')
  .overwrite((name) => name.toLowerCase());
const handles = z.array(seat).max(20);

// The filters `GET /work` takes, as one definition (schema/work/item.list.filters.ts); the page is the
// tool's own, smaller than the route's, as a model reads every row of it.
const ListArgs = ItemListFilterArgs.extend({
  limit: z.number().int().min(1).max(LIST_MAX).default(20),
  cursor: z
    .string()
    .max(2_000)
    .optional()
    .describe("The previous answer's `next`, with the same filters: the next page. Omitted: the first."),
}).strict();
const GetArgs = z.strictObject({ item });
const CreateArgs = z.strictObject({
  // Keys are upper-case by their grammar, so any case names the project, as on POST /work.
  project: z
    .string()
    .overwrite((key) => key.toUpperCase())
    .describe('Project key (ENG), in any case.'),
  title: ItemTitle,
  description: bodyText().max(65_536).optional(),
  type: z.string().optional().describe('task, bug, feature, chore or question.'),
  priority: z.enum(priorities).optional(),
  assignees: handles.optional(),
});
/** A field an item may be without: null clears it, as `PATCH /work/{id}`'s merge patch does (UpdateItemBody). */
const clearable = <T extends z.ZodType>(field: T, empty: () => z.output<T>) =>
  field
    .nullable()
    .transform((value): z.output<T> => value ?? empty())
    .optional();
const UpdateArgs = z.strictObject({
  item,
  title: ItemTitle.optional(),
  description: clearable(bodyText().max(65_536), () => defaultFields().description).describe(
    'null clears it.',
  ),
  priority: clearable(z.enum(priorities), () => defaultFields().priority).describe('null: none.'),
  assignees: clearable(handles, () => defaultFields().assignees).describe(
    'The whole new list of assignees; null or [] clears it.',
  ),
  watchers: clearable(handles, () => defaultFields().watchers).describe('null clears it.'),
  labels: clearable(z.array(lineText().min(1).max(60)).max(30), () => defaultFields().labels).describe(
    'null clears it.',
  ),
});
/**
 * What `work_update` may not clear, as `PATCH /work/{id}` refuses them: every item has these. Each with what
 * to do instead, in the tools' words.
 */
const KEPT_FIELDS: Readonly<Record<string, string>> = {
  title: 'send a new title',
  type: 'an item always has a type; work_update keeps it',
  status: 'move the item to another status with work_move',
  project: 'an item stays in the project it was created in',
};

/** The refusal of a null for a field every item has, or null when the call names none. */
function keptFieldsRemoved(args: unknown): ToolResult | null {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return null;
  const removed = Object.keys(KEPT_FIELDS).filter((name) => (args as Record<string, unknown>)[name] === null);
  if (removed.length === 0) return null;
  const names = removed.join(' and ');
  return refusedResult(
    'validation_error',
    `${names} cannot be removed: every item has ${removed.length === 1 ? 'one' : 'them'}. A null in work_update clears a field an item may be without; instead: ${removed.map((n) => `${n}: ${KEPT_FIELDS[n]}`).join('; ')}.`,
    removed.map((name) => ({
      path: name,
      segments: [name],
      kind: 'invalid',
      message: `${name} cannot be removed`,
    })),
  );
}
const CommentArgs = z.strictObject({ item, body: bodyText().trim().min(1).max(65_536) });
const MoveArgs = z.strictObject({
  item,
  to: z.enum(workStatuses).describe('backlog, todo, in_progress, in_review, done or cancelled.'),
});

const LAG_NOTE =
  'Done: the change is recorded, but this node does not show it yet; read the item again shortly rather than repeating the change.';

const annotations = (title: string, readOnly: boolean) => ({
  title,
  readOnlyHint: readOnly,
  destructiveHint: false,
  idempotentHint: readOnly,
  openWorldHint: false,
});

const summary = (state: WorkState, ref: string) => {
  const found = itemByRef(state, ref);
  if (!found) return null;
  const f = found.fields;
  return {
    key: found.key,
    title: f.title,
    status: found.status,
    group: groupOf[found.status],
    priority: f.priority,
    type: f.type,
    assignees: f.assignees,
    // The lists an update replaces whole: a seat adding a label or a watcher reads them here first.
    watchers: f.watchers,
    labels: f.labels,
    asked_of: f.asked_of,
    due_date: f.due_date,
    description: f.description,
    checklist: f.checklist,
    links: f.links,
    comments: found.comments.slice(-COMMENTS_SHOWN),
    // Only the latest are shown: the count says when the thread is longer.
    comments_total: found.comments.length,
  };
};

export function workTools(deps: {
  readonly work: () => WorkAccess | null;
  /** The read-back wait (tests shorten it). */
  readonly readBackMs?: number;
}): BuiltinTool[] {
  const readBackMs = deps.readBackMs ?? READ_BACK_MS;
  const reach = (): WorkAccess | { error: ToolResult } =>
    deps.work() ?? { error: textResult('This company has no native work tracker (tracker.backend).', true) };

  const change = async (ctx: ToolContext, tool: string, body: WorkChange): Promise<ToolResult> => {
    const work = reach();
    if ('error' in work) return work.error;
    const reply = await work.write({
      op_id: ctx.op_id ?? builtinCallId(ctx, tool),
      actor: ctx.seat,
      turn_id: ctx.turn_id ?? null,
      change: body,
    });
    if (reply.outcome === 'refused') return refusedResult(reply.error, reply.detail, reply.problems);
    const shown = await work.until(reply.seq, readBackMs);
    const item = summary(work.state(), reply.id);
    return textResult(
      JSON.stringify({
        key: reply.key,
        position: reply.position,
        item,
        ...(shown && item ? {} : { note: LAG_NOTE }),
      }),
    );
  };

  return [
    defineBuiltin({
      name: 'work_list',
      description:
        'List work items of the company tracker, newest first, filtered by project, status, status group, assignee, type, priority, label or words, as GET /work filters. Answers `{items, total, next}`: each row has the key, title, type, status, group, priority, assignees, labels, due date, comment count and when it was created and last changed; `total` counts every match. When `next` is not null, pass it back as `cursor` with the same filters for the next page.',
      annotations: annotations('List work items', true),
      delivers: null,
      args: ListArgs,
      run(ctx, args) {
        const work = reach();
        if ('error' in work) return Promise.resolve(work.error);
        // The filters as `GET /work` reads them (an empty one is none, a key or handle in any case, the same
        // closed sets and search cap), so the two read one list and a `next` of either reads on in the other.
        const read = readItemFilters({
          project: args.project ?? null,
          status: listArg(args.status),
          group: listArg(args.group),
          assignee: args.assignee ?? null,
          type: args.type ?? null,
          priority: args.priority ?? null,
          label: args.label ?? null,
          q: args.q ?? null,
        });
        if ('refused' in read)
          return Promise.resolve(
            refusedResult(
              'bad_params',
              read.hint === undefined ? read.refused : `${read.refused} ${read.hint}`,
            ),
          );
        const filters = { ...read, assignee: read.assignee === 'me' ? ctx.seat : read.assignee };
        const state = work.state();
        const list = itemListIdentity(filters);
        const cursor = readItemListCursor(state, args.cursor ?? null, list);
        if ('refused' in cursor)
          return Promise.resolve(
            refusedResult(
              'bad_params',
              `\`cursor\` ${cursor.refused}; send the previous answer's \`next\` with the same filters, or leave it out for the first page.`,
            ),
          );
        const found = listItems(state, { ...filters, limit: args.limit, after: cursor.after });
        // The route's paging and rows: an item's type, labels, due date, group and last change with its
        // key, so a row is acted on without another read (`work_get` reads one in full, with its thread).
        const items = found.items;
        return Promise.resolve(
          textResult(
            JSON.stringify(
              { items, total: found.total, next: sealItemListCursor(found.next, list) },
              null,
              2,
            ),
          ),
        );
      },
    }),
    defineBuiltin({
      name: 'work_get',
      description:
        'Read one work item: description, status, assignees, watchers, labels, checklist, links, the latest 20 comments and `comments_total`, the count of all.',
      annotations: annotations('Read a work item', true),
      delivers: null,
      args: GetArgs,
      run(_ctx, args) {
        const work = reach();
        if ('error' in work) return Promise.resolve(work.error);
        const found = summary(work.state(), args.item);
        return Promise.resolve(
          found
            ? textResult(JSON.stringify(found, null, 2))
            : refusedResult('not_found', `No work item "${args.item}".`),
        );
      },
    }),
    defineBuiltin({
      name: 'work_create',
      description: 'Create a work item in a project; assigning a colleague wakes them if they are an agent.',
      annotations: annotations('Create a work item', false),
      delivers: 'work_tracker',
      args: CreateArgs,
      run: (ctx, { project, ...fields }) =>
        change(ctx, 'work_create', {
          kind: 'create',
          project,
          fields: compact(fields),
        }),
    }),
    updateTool(
      defineBuiltin({
        name: 'work_update',
        description:
          'Change fields of a work item (title, description, priority, assignees, watchers, labels); null clears one, as a merge patch does.',
        annotations: annotations('Update a work item', false),
        delivers: 'work_tracker',
        args: UpdateArgs,
        run: (ctx, { item: ref, ...changes }) =>
          change(ctx, 'work_update', {
            kind: 'update',
            item: ref,
            changes: compact(changes),
          }),
      }),
    ),
    defineBuiltin({
      name: 'work_comment',
      description: 'Comment on a work item: where you report progress and results to whoever waits on it.',
      annotations: annotations('Comment on a work item', false),
      delivers: 'work_tracker',
      args: CommentArgs,
      run: (ctx, args) => change(ctx, 'work_comment', { kind: 'comment', item: args.item, body: args.body }),
    }),
    defineBuiltin({
      name: 'work_move',
      description:
        'Place a work item in a status (backlog → todo → in_progress → in_review → done; cancelled). Moving it to done completes it.',
      annotations: annotations('Move a work item', false),
      delivers: 'work_tracker',
      args: MoveArgs,
      run: (ctx, args) => change(ctx, 'work_move', { kind: 'move', item: args.item, to: args.to }),
    }),
  ];
}

/**
 * `work_update` refusing a null for a field every item has by name, once the rest of its arguments fit (as
 * `PATCH /work/{id}` does), rather than as a value of the wrong type or an argument it does not take.
 */
function updateTool(tool: BuiltinTool): BuiltinTool {
  const precheck = (args: Record<string, unknown>): BuiltinPrecheck => {
    const refused = keptFieldsRemoved(args);
    if (refused === null) return { args };
    const rest = Object.fromEntries(
      Object.entries(args).filter(([name, value]) => !(name in KEPT_FIELDS && value === null)),
    );
    return UpdateArgs.safeParse(rest).success ? { refused } : { args: rest };
  };
  return {
    ...tool,
    precheck,
    call(ctx, args) {
      const checked = precheck(args);
      return 'refused' in checked ? Promise.resolve(checked.refused) : tool.call(ctx, checked.args);
    },
  };
}

/** A one-or-more filter argument as the route's list parameter reads it. */
const listArg = (value: string | readonly string[] | undefined): readonly string[] =>
  value === undefined ? [] : typeof value === 'string' ? [value] : value;

/** The object without its undefined members (an absent argument changes nothing). */
function compact<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
