/**
 * Items: the listing, one item, its comments and turns pages, and the writes (ops/work-tracker.md
 * "Writes": create, update, move, comment, purge). A write answers once this node's projection shows it,
 * so the item read back right after includes the change.
 */
import { randomUUID } from 'node:crypto';
import {
  CommentBody,
  CreateItemBody,
  encodeCursor,
  listIdentity,
  ListOrder,
  MoveItemBody,
  PurgeBody,
  queryRanges,
  SeqKey,
  UpdateItemBody,
  itemByRef,
  itemListIdentity,
  itemListFilterNames,
  itemVersion,
  listItems,
  readItemFilters,
  readItemListCursor,
  sealItemListCursor,
  type WorkChange,
  type WorkState,
} from '../../../schema/index.js';
import { itemDetail } from '../../../projections/index.js';
import { ApiError } from '../../api-error.js';
import { createPreconditions, noneMatchVersion, versioned, versionTag } from '../if-match.param.js';
import { bodyOpId, opIdOf, writeBody } from '../op-id.param.js';
import { fitBody, jsonValue } from '../../json-body.js';
import { cursorParam, cursorRefused, sealNext } from '../list-cursor.param.js';
import type { ApiReply, ApiRequest, RouteDef } from '../../types.js';
import type { WorkRouteDeps } from './work.deps.js';
import {
  actorOf,
  badParams,
  itemParam,
  itemRef,
  listParam,
  operatorOnly,
  refusal,
  textParam,
  workParam,
} from './work.params.js';
import { intParam } from '../int-query.param.js';
import { singleParam } from '../single.param.js';

const READ_BACK_MS = 10_000;
/** `GET /work`'s filters: they define the list a cursor pages. */
const LIST_FILTERS = itemListFilterNames;
/** A purge's fields, taken from the body or from the query. */
const PURGE_FIELDS = ['confirm', 'project', 'reason', 'op_id'] as const;

function listing(deps: WorkRouteDeps, req: ApiRequest): ApiReply {
  // Read as the `work_list` tool reads its arguments (schema/work/item.list.filters.ts), so the two take
  // the same filters, refuse alike and read one list; a `next` of either reads on in the other.
  const filters = readItemFilters({
    project: workParam(req, 'project'),
    status: listParam(req, 'status'),
    group: listParam(req, 'group'),
    assignee: workParam(req, 'assignee'),
    type: workParam(req, 'type'),
    priority: workParam(req, 'priority'),
    label: workParam(req, 'label'),
    q: workParam(req, 'q'),
  });
  if ('refused' in filters)
    throw new ApiError('bad_params', {
      detail: filters.refused,
      ...(filters.hint === undefined ? {} : { hint: filters.hint }),
    });
  // The filters define the list (a status list in any order is the same list), the limit does not.
  const list = itemListIdentity(filters);
  const state = deps.state();
  const cursor = readItemListCursor(state, singleParam(req, 'cursor', 'bad_params'), list);
  if ('refused' in cursor) throw cursorRefused(cursor.refused);
  const body = listItems(state, {
    ...filters,
    limit: intParam(req, 'limit', queryRanges.workListLimit),
    after: cursor.after,
  });
  return { status: 200, body: { ...body, next: sealItemListCursor(body.next, list) } };
}

/**
 * A newest-first page of rows held oldest first and only ever appended to (a thread, an item's turns):
 * the cursor names the last row shown and its place, so rows added meanwhile never shift a page.
 */
function newestPage<T>(
  rows: readonly T[],
  idOf: (row: T) => string,
  req: ApiRequest,
  order: ListOrder,
  item: string,
) {
  const limit = intParam(req, 'limit', queryRanges.workPageLimit);
  // One item's thread (or turns) is the list: a cursor of another item's is refused.
  const list = listIdentity(order, { item });
  const after = cursorParam(req, order, SeqKey, list);
  let end = rows.length;
  if (after !== null) {
    // Rows are only appended while the item lives, so the cursor's row is still at its place.
    if (rows[after.key] === undefined || idOf(rows[after.key]!) !== after.id)
      throw cursorRefused('names no row of this list');
    end = after.key;
  }
  const start = Math.max(0, end - limit);
  const first = rows[start];
  const next = start > 0 && first !== undefined ? encodeCursor(order, { key: start, id: idOf(first) }) : null;
  return { rows: rows.slice(start, end).reverse(), total: rows.length, next: sealNext(next, list) };
}

function comments(deps: WorkRouteDeps, req: ApiRequest): ApiReply {
  const ref = textParam(req, 'item');
  if (ref === null) throw badParams('item is required (a key or an id)');
  const item = itemParam(deps.state(), ref);
  const { rows, total, next } = newestPage(item.comments, (c) => c.id, req, ListOrder.Comments, item.id);
  return { status: 200, body: { item: item.key, comments: rows, total, next } };
}

/** The turns that changed an item: one row per turn, newest first. */
function turns(deps: WorkRouteDeps, req: ApiRequest): ApiReply {
  const ref = textParam(req, 'id');
  if (ref === null) throw badParams('id is required (a key or an id)');
  const item = itemParam(deps.state(), ref);
  const byTurn = new Map<
    string,
    { turn_id: string; seat: string; first_at: string; last_at: string; changes: number }
  >();
  for (const row of item.history) {
    if (row.turn_id === null) continue;
    const t = byTurn.get(row.turn_id);
    if (t) {
      t.last_at = row.at;
      t.changes += 1;
    } else
      byTurn.set(row.turn_id, {
        turn_id: row.turn_id,
        seat: row.actor,
        first_at: row.at,
        last_at: row.at,
        changes: 1,
      });
  }
  const { rows, total, next } = newestPage(
    [...byTurn.values()],
    (t) => t.turn_id,
    req,
    ListOrder.Turns,
    item.id,
  );
  return { status: 200, body: { item: item.key, turns: rows, total, next } };
}

async function send(
  deps: WorkRouteDeps,
  req: ApiRequest,
  opId: string | undefined,
  change: WorkChange,
  status = 200,
): Promise<ApiReply> {
  const people = deps.people();
  const op_id = opIdOf(req, opId, randomUUID);
  const reply = refusal(await deps.write({ op_id, actor: actorOf(req, people), turn_id: null, change }));
  await deps.until(reply.seq, READ_BACK_MS);
  const state = deps.state();
  const item = state.items.get(reply.id);
  return {
    status: reply.repeated ? 200 : status,
    headers: item ? { ETag: `"${itemVersion(item)}"` } : {},
    body: {
      op_id: reply.op_id,
      outcome: reply.repeated ? 'repeated' : 'applied',
      position: reply.position,
      key: reply.key,
      item: item ? itemDetail(state, item) : null,
    },
  };
}

/**
 * `If-Match: "N"` (or a bare N), the item version its `ETag` gave: the writer takes the change only while
 * the item is at N (409 `revision_advanced` otherwise, as a stale `If-Match` is everywhere). Absent: any
 * version. Anything else (`*`, a weak tag, a header no version could be) is 400 `bad_params`. Then
 * `If-None-Match` (if-match.param.ts).
 */
function ifMatch(req: ApiRequest, state: WorkState, opId: string | undefined): { if_match?: number } {
  const ref = req.params['id'] ?? '';
  const item = itemByRef(state, ref);
  const current = item ? itemVersion(item) : null;
  const raw = req.headers['if-match'];
  let version: number | undefined;
  if (raw !== undefined && raw !== '') {
    // A list may name the current version anywhere (RFC 9110 13.1.1): the writer still compares in log order.
    const tagged = versionTag(raw, current);
    if (tagged === null || tagged < 1)
      throw badParams(
        'If-Match must list the item version its ETag gave ("3"), a strong tag, not only weak tags or *',
      );
    version = tagged;
  }
  // If-None-Match (412 `entity_exists` when it names the item) pins the write to the version it judged;
  // a retry of a decided op_id answers its first outcome, so it is not judged again.
  const decided = state.ops.has(opIdOf(req, opId, () => ''));
  const pinned = decided ? version : noneMatchVersion(req.headers['if-none-match'], current, version);
  return pinned === undefined ? {} : { if_match: pinned };
}

/**
 * What a PATCH may not remove: every item has these, so a merge patch's null (RFC 7396) cannot apply to
 * them. Each with what to do instead.
 */
const KEPT_FIELDS: Readonly<Record<string, string>> = {
  title: 'send a new title',
  type: 'send another type (GET /work/catalogue lists them)',
  status: 'move the item to another status (POST /work/{id}/move)',
  project: 'an item stays in the project it was created in',
};

/**
 * `PATCH /work/{id}`'s body (UpdateItemBody: null clears a field an item may be without). Null for one it
 * always has is refused by name once the rest of the body fits, rather than as a value of the wrong type
 * (or, for `status` and `project`, as a field PATCH does not know).
 */
function updateBody(req: ApiRequest): UpdateItemBody {
  const raw = jsonValue(req);
  opIdOf(req, bodyOpId(raw), () => '');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fitBody(raw, UpdateItemBody);
  const removed = Object.keys(KEPT_FIELDS).filter((name) => (raw as Record<string, unknown>)[name] === null);
  const rest = Object.fromEntries(Object.entries(raw).filter(([name]) => !removed.includes(name)));
  const body = fitBody(rest, UpdateItemBody);
  if (removed.length === 0) return body;
  const names = removed.join(' and ');
  throw new ApiError('validation_error', {
    detail: `${names} cannot be removed: every item has ${removed.length === 1 ? 'one' : 'them'}.`,
    hint: `A null in a PATCH removes a field an item may be without; instead: ${removed.map((n) => `${n}: ${KEPT_FIELDS[n]}`).join('; ')}.`,
    extra: {
      problems: removed.map((name) => ({
        path: name,
        segments: [name],
        kind: 'invalid',
        message: `${name} cannot be removed`,
      })),
    },
  });
}

export function workItemRoutes(deps: WorkRouteDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/work',
      query: [...LIST_FILTERS, 'limit', 'cursor'],
      handler: (req) => listing(deps, req),
    },
    {
      method: 'GET',
      pattern: '/work/comments',
      query: ['item', 'limit', 'cursor'],
      handler: (req) => comments(deps, req),
    },
    {
      method: 'GET',
      pattern: '/work/turns',
      query: ['id', 'limit', 'cursor'],
      handler: (req) => turns(deps, req),
    },
    {
      method: 'GET',
      pattern: '/work/:id',
      query: [],
      handler: (req) => {
        const state = deps.state();
        const item = itemParam(state, req.params['id']!);
        return { status: 200, headers: { ETag: `"${itemVersion(item)}"` }, body: itemDetail(state, item) };
      },
    },
    {
      method: 'POST',
      pattern: '/work',
      query: ['op_id'],
      preconditions: versioned,
      handler: async (req) => {
        const { project, status, op_id, ...fields } = writeBody(req, CreateItemBody);
        createPreconditions(req, 'item');
        return send(
          deps,
          req,
          op_id,
          { kind: 'create', project, ...(status ? { status } : {}), fields },
          201,
        );
      },
    },
    {
      method: 'PATCH',
      pattern: '/work/:id',
      query: ['op_id'],
      preconditions: versioned,
      handler: async (req) => {
        const { op_id, ...changes } = updateBody(req);
        return send(deps, req, op_id, {
          kind: 'update',
          item: itemRef(req.params['id']!),
          changes,
          ...ifMatch(req, deps.state(), op_id),
        });
      },
    },
    {
      method: 'POST',
      pattern: '/work/:id/move',
      query: ['op_id'],
      preconditions: versioned,
      handler: async (req) => {
        const { op_id, to } = writeBody(req, MoveItemBody);
        return send(deps, req, op_id, {
          kind: 'move',
          item: itemRef(req.params['id']!),
          to,
          ...ifMatch(req, deps.state(), op_id),
        });
      },
    },
    {
      method: 'POST',
      pattern: '/work/:id/comments',
      query: ['op_id'],
      preconditions: versioned,
      handler: async (req) => {
        const { op_id, body } = writeBody(req, CommentBody);
        return send(
          deps,
          req,
          op_id,
          { kind: 'comment', item: itemRef(req.params['id']!), body, ...ifMatch(req, deps.state(), op_id) },
          201,
        );
      },
    },
    {
      method: 'POST',
      pattern: '/work/:id/purge',
      query: PURGE_FIELDS,
      preconditions: versioned,
      handler: async (req) => {
        operatorOnly(req, 'purges');
        // Accepted in the body or as query parameters, from one source: a query value beside a body is
        // refused rather than ignored (`op_id` alone may be in both, as on every write). Validated whole
        // before anything is destroyed.
        const fromQuery = Object.fromEntries(
          PURGE_FIELDS.flatMap((k) => {
            const v = k === 'op_id' ? singleParam(req, k, 'op_id_invalid') : workParam(req, k);
            return v === null ? [] : [[k, v]];
          }),
        );
        const mixed = Object.keys(fromQuery).filter((k) => k !== 'op_id');
        if (req.body.length > 0 && mixed.length > 0)
          throw badParams(
            `send confirm, project and reason in the JSON body or as query parameters, not both: ${mixed.map((k) => `?${k}=`).join(', ')} given with a body`,
          );
        const given =
          req.body.length > 0
            ? writeBody(req, PurgeBody)
            : writeBody({ ...req, body: Buffer.from(JSON.stringify(fromQuery)) }, PurgeBody);
        const opId = opIdOf(req, given.op_id, randomUUID);
        const { op_id: _ignored, ...purge } = given;
        const item = itemRef(req.params['id']!);
        return send(deps, req, opId, { kind: 'purge', item, ...purge, ...ifMatch(req, deps.state(), opId) });
      },
    },
  ];
}
