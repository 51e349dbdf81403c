/**
 * The knowledge base's writes (ops/knowledge-base.md "Writes"): `POST /pages`, `PATCH /pages/{id}`,
 * `POST /pages/{id}/comments`, `DELETE /pages/{id}`. Each carries an op_id (a retry with the same one
 * answers the first outcome and writes nothing) and is recorded as the caller.
 */
import { z } from 'zod';
import type { PagesService, PageWriteResult } from '../../../projections/index.js';
import { PageCommentBody, ContainerKey, OpId, PageBody, PageTitle } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { ApiReply, ApiRequest } from '../../types.js';
import { notFound } from './pages.reads.js';
import { fitBody, jsonValue } from '../../json-body.js';
import { opIdOf, refusedWrite, type KnowledgeCallers } from './pages.request.js';

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

/** A parent reference (id or `CONTAINER/Title`) as an id; null stays null (top of the container). */
function parentOf(pages: PagesService, ref: string | null | undefined): string | null | undefined {
  if (ref === undefined || ref === null) return ref;
  const found = pages.resolve(ref);
  if (!found) throw notFound(ref);
  return found.id;
}

function written(result: PageWriteResult, opId: string, status: number): ApiReply {
  if (!result.ok) throw refusedWrite(result);
  return {
    status,
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
function ifMatchVersion(req: ApiRequest): number | undefined {
  const header = req.headers['if-match'];
  if (header === undefined) return undefined;
  const m = /^\s*"?(\d+)"?\s*$/.exec(header);
  if (!m || Number(m[1]) < 1)
    throw new ApiError('bad_params', {
      detail:
        '`If-Match` must be the page version its `ETag` gave (a strong tag: `"N"`, not `W/"N"` or `*`).',
    });
  return Number(m[1]);
}

export async function createRoute(deps: WriteDeps, req: ApiRequest): Promise<ApiReply> {
  const raw = jsonValue(req);
  const opId = opIdOf(req, raw);
  const body = fitBody(raw, CreateBody);
  const result = await deps.pages.write(deps.caller(req.actor), opId, {
    type: 'create',
    container: body.container,
    title: body.title,
    body: body.body ?? '',
    parent_id: parentOf(deps.pages, body.parent) ?? null,
  });
  return written(result, opId, 201);
}

export async function updateRoute(deps: WriteDeps, req: ApiRequest, ref: string): Promise<ApiReply> {
  const raw = jsonValue(req);
  const opId = opIdOf(req, raw);
  const body = fitBody(raw, UpdateBody);
  const page = deps.pages.resolve(ref);
  if (!page) throw notFound(ref);
  const headerVersion = ifMatchVersion(req);
  if (headerVersion !== undefined && body.base_version !== undefined && headerVersion !== body.base_version)
    throw new ApiError('bad_params', { detail: '`If-Match` and `base_version` name different versions.' });
  const base = body.base_version ?? headerVersion;
  const parent = parentOf(deps.pages, body.parent);
  const result = await deps.pages.write(deps.caller(req.actor), opId, {
    type: 'update',
    page_id: page.id,
    ...(body.title === undefined ? {} : { title: body.title }),
    ...(body.body === undefined ? {} : { body: body.body }),
    ...(parent === undefined ? {} : { parent_id: parent }),
    ...(base === undefined ? {} : { base_version: base }),
  });
  return written(result, opId, 200);
}

export async function commentRoute(deps: WriteDeps, req: ApiRequest, ref: string): Promise<ApiReply> {
  const raw = jsonValue(req);
  const opId = opIdOf(req, raw);
  const body = fitBody(raw, CommentRequest);
  const page = deps.pages.resolve(ref);
  if (!page) throw notFound(ref);
  const result = await deps.pages.write(deps.caller(req.actor), opId, {
    type: 'comment',
    page_id: page.id,
    body: body.body,
  });
  return written(result, opId, 201);
}

export async function deleteRoute(deps: WriteDeps, req: ApiRequest, ref: string): Promise<ApiReply> {
  const raw = jsonValue(req);
  const opId = opIdOf(req, raw);
  fitBody(raw, DeleteBody);
  const page = deps.pages.resolve(ref);
  if (!page) {
    // A retried delete whose first attempt removed the page answers that outcome again. A title no
    // longer resolves once deleted, so only an id is checked against what that delete removed.
    const earlier = deps.pages.state().outcomes.get(opId);
    if (earlier?.ok && earlier.type === 'page.delete' && (earlier.page_id === ref || ref.includes('/')))
      return { status: 200, body: { op_id: opId, repeated: true, page_id: earlier.page_id, deleted: true } };
    throw notFound(ref);
  }
  const result = await deps.pages.write(deps.caller(req.actor), opId, { type: 'delete', page_id: page.id });
  if (!result.ok) throw refusedWrite(result);
  return {
    status: 200,
    body: { op_id: opId, repeated: result.repeated, page_id: result.page_id, deleted: true },
  };
}
