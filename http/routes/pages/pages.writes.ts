/**
 * The knowledge base's writes (ops/knowledge-base.md "Writes"): `POST /pages`, `PATCH /pages/{id}`,
 * `POST /pages/{id}/comments`, `DELETE /pages/{id}`. Each carries an op_id (a retry with the same one
 * answers the first outcome and writes nothing) and is recorded as the caller.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { PagesService, PageWriteResult } from '../../../projections/index.js';
import {
  PageCommentBody,
  ContainerKey,
  OpId,
  opIdReusedDetail,
  PageBody,
  PageTitle,
} from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { ApiReply, ApiRequest } from '../../types.js';
import { createPreconditions, noneMatchVersion, versionTag } from '../if-match.param.js';
import { notFound } from './pages.reads.js';
import { fitBody, jsonValue } from '../../json-body.js';
import { bodyOpId, opIdOf } from '../op-id.param.js';
import { refusedWrite, type KnowledgeCallers } from './pages.request.js';

const ParentRef = z.string().min(1).max(600).nullable();

const CreateBody = z.strictObject({
  container: ContainerKey,
  title: PageTitle,
  body: PageBody.optional(),
  parent: ParentRef.optional(),
  op_id: OpId.optional(),
});
const UpdateBody = z.strictObject({
  title: PageTitle.optional(),
  body: PageBody.optional(),
  parent: ParentRef.optional(),
  base_version: z.number().int().positive().optional(),
  op_id: OpId.optional(),
});
const CommentRequest = z.strictObject({ body: PageCommentBody, op_id: OpId.optional() });
/** A delete's body is optional; when sent it may carry the op_id, and nothing else. */
const DeleteBody = z.strictObject({ op_id: OpId.optional() });

export interface WriteDeps extends KnowledgeCallers {
  readonly pages: PagesService;
}

/**
 * A parent reference (id or `CONTAINER/Title`) as an id; null or `root` (the listing's word for the top,
 * which the page tools take too; no page ref is one bare word) is null, the top of the container.
 */
function parentOf(pages: PagesService, ref: string | null | undefined): string | null | undefined {
  if (ref === undefined || ref === null) return ref;
  if (ref === 'root') return null;
  const found = pages.resolve(ref);
  if (!found) throw notFound(ref);
  return found.id;
}

/**
 * The page a write under `opId` acts on. An op_id already decided is looked at first, so a retry is
 * answered its first outcome whatever happened to the page since (renamed, deleted), and a ref that names
 * neither that page nor a live one is another target: 409 `op_id_reused`, as the writer answers a ref to
 * another live page. Only an op_id never used is 404 `not_found` for a page that is not there.
 */
function targetOf(pages: PagesService, ref: string, opId: string): string {
  const id = pages.target(ref, opId);
  if (id !== null) return id;
  const first = pages.state().outcomes.get(opId);
  if (first) throw new ApiError('op_id_reused', { detail: opIdReusedDetail(opId, first.gesture) });
  throw notFound(ref);
}

/** `status` is the answer to a first outcome; a repeat made nothing, so it is 200, as on the work writes. */
function written(result: PageWriteResult, opId: string, status: number): ApiReply {
  if (!result.ok) throw refusedWrite(result);
  return {
    status: result.repeated ? 200 : status,
    // The version the page is left at, so the next write's If-Match needs no read (null once deleted).
    ...(result.page ? { headers: { ETag: `"${result.page.version}"` } } : {}),
    body: {
      op_id: opId,
      repeated: result.repeated,
      page_id: result.page_id,
      version: result.version,
      ...(result.comment_id === null ? {} : { comment_id: result.comment_id }),
      page: result.page,
    },
  };
}

/**
 * `If-Match: "N"` (or a bare N) as a base version; anything else 400 `bad_params` — a weak `W/"N"` too, as
 * on the files routes: If-Match compares strongly (RFC 9110 13.1.1), so a weak tag never matches.
 */
function ifMatchVersion(req: ApiRequest, current: number | null): number | undefined {
  const header = req.headers['if-match'];
  if (header === undefined) return undefined;
  // A list may name the current version anywhere (RFC 9110 13.1.1); the writer still compares.
  const version = versionTag(header, current);
  if (version === null || version < 1)
    throw new ApiError('bad_params', {
      detail:
        '`If-Match` must be the page version its `ETag` gave (a strong tag: `"N"`, not `W/"N"` or `*`).',
    });
  return version;
}

/**
 * `If-None-Match` after the base version (`If-Match` or `base_version`): naming the version the write would
 * apply to, or `*` (the page exists), is 412 `entity_exists`; otherwise the write is pinned to the version
 * judged, so the fold (deciding in log order) never applies it to one the header named. A retry of a
 * decided op_id answers its first outcome and is not judged again.
 */
function noneMatchBase(deps: WriteDeps, req: ApiRequest, opId: string, pageId: string, base?: number) {
  if (deps.pages.state().outcomes.has(opId)) return base;
  return noneMatchVersion(req.headers['if-none-match'], deps.pages.resolve(pageId)?.version ?? null, base);
}

/** The version a write without a body `base_version` is taken at: its `If-Match`, then `If-None-Match`. */
const headerBase = (deps: WriteDeps, req: ApiRequest, opId: string, pageId: string): number | undefined =>
  noneMatchBase(deps, req, opId, pageId, ifMatchVersion(req, deps.pages.resolve(pageId)?.version ?? null));

export async function createRoute(deps: WriteDeps, req: ApiRequest): Promise<ApiReply> {
  const raw = jsonValue(req);
  const opId = opIdOf(req, bodyOpId(raw), randomUUID);
  const body = fitBody(raw, CreateBody);
  createPreconditions(req, 'page');
  const result = await deps.pages.write(deps.caller(req.actor), opId, {
    type: 'create',
    container: body.container,
    title: body.title,
    body: body.body ?? '',
    // A decided op_id is answered its first outcome (or op_id_reused) by the writer whatever the parent
    // is now, so a parent deleted since is not looked up.
    parent_id: deps.pages.state().outcomes.has(opId) ? null : (parentOf(deps.pages, body.parent) ?? null),
  });
  return written(result, opId, 201);
}

export async function updateRoute(deps: WriteDeps, req: ApiRequest, ref: string): Promise<ApiReply> {
  const raw = jsonValue(req);
  const opId = opIdOf(req, bodyOpId(raw), randomUUID);
  const body = fitBody(raw, UpdateBody);
  // A PATCH naming nothing to change is a mistake to report (as on the work items), not a 200.
  if (body.title === undefined && body.body === undefined && body.parent === undefined)
    throw new ApiError('invalid_body', {
      detail: 'The PATCH names nothing to change: send `title`, `body` or `parent`.',
      extra: {
        problems: [
          { path: '', segments: [], kind: 'missing', message: 'changes nothing: name title, body or parent' },
        ],
      },
    });
  const pageId = targetOf(deps.pages, ref, opId);
  const headerVersion = ifMatchVersion(req, deps.pages.resolve(pageId)?.version ?? null);
  if (headerVersion !== undefined && body.base_version !== undefined && headerVersion !== body.base_version)
    throw new ApiError('bad_params', { detail: '`If-Match` and `base_version` name different versions.' });
  const base = noneMatchBase(deps, req, opId, pageId, body.base_version ?? headerVersion);
  const parent = deps.pages.state().outcomes.has(opId) ? undefined : parentOf(deps.pages, body.parent);
  const result = await deps.pages.write(deps.caller(req.actor), opId, {
    type: 'update',
    page_id: pageId,
    ...(body.title === undefined ? {} : { title: body.title }),
    ...(body.body === undefined ? {} : { body: body.body }),
    ...(parent === undefined ? {} : { parent_id: parent }),
    ...(base === undefined ? {} : { base_version: base }),
  });
  return written(result, opId, 200);
}

export async function commentRoute(deps: WriteDeps, req: ApiRequest, ref: string): Promise<ApiReply> {
  const raw = jsonValue(req);
  const opId = opIdOf(req, bodyOpId(raw), randomUUID);
  const body = fitBody(raw, CommentRequest);
  const pageId = targetOf(deps.pages, ref, opId);
  // A precondition sent is never silently ignored: a comment is taken only at the version it names.
  const base = headerBase(deps, req, opId, pageId);
  const result = await deps.pages.write(deps.caller(req.actor), opId, {
    type: 'comment',
    page_id: pageId,
    body: body.body,
    ...(base === undefined ? {} : { base_version: base }),
  });
  return written(result, opId, 201);
}

export async function deleteRoute(deps: WriteDeps, req: ApiRequest, ref: string): Promise<ApiReply> {
  const raw = jsonValue(req);
  const opId = opIdOf(req, bodyOpId(raw), randomUUID);
  fitBody(raw, DeleteBody);
  const pageId = targetOf(deps.pages, ref, opId);
  const base = headerBase(deps, req, opId, pageId);
  const result = await deps.pages.write(deps.caller(req.actor), opId, {
    type: 'delete',
    page_id: pageId,
    ...(base === undefined ? {} : { base_version: base }),
  });
  if (!result.ok) throw refusedWrite(result);
  return {
    status: 200,
    body: { op_id: opId, repeated: result.repeated, page_id: result.page_id, deleted: true },
  };
}
