/**
 * What the knowledge routes share: the op_id of a write (body field or `?op_id=`; 400 `op_id_invalid`),
 * the caller a write is recorded as, and a write's refusal as its catalogued error.
 */
import { randomUUID } from 'node:crypto';
import { isOpId, opIdProblem, type ServiceCaller } from '../../../schema/index.js';
import type { PageWriteResult } from '../../../projections/index.js';
import { ApiError } from '../../api-error.js';
import type { Actor, ApiRequest, RequestHead } from '../../types.js';
import { singleParam } from '../single.param.js';

export interface KnowledgeCallers {
  /** Who a write by `actor` is recorded as (a token bound to a person is that person). */
  caller(actor: Actor | null): ServiceCaller;
}

const opIdRefusal = (detail: string, value?: unknown) =>
  new ApiError('op_id_invalid', {
    detail: `${detail} ${typeof value === 'string' ? (opIdProblem(value) ?? '') : 'it must be a string'}.`,
  });

/** `?op_id=` checked before the body is read (a write is refused before anything happens). */
export function checkQueryOpId(req: RequestHead): void {
  const value = singleParam(req, 'op_id', 'op_id_invalid');
  if (value !== null && !isOpId(value)) throw opIdRefusal('`?op_id=` is outside the grammar:', value);
}

/**
 * The write's op_id: the body's `op_id` (a string in the grammar), else `?op_id=`, else a fresh one
 * (the answer names it, so the caller can retry with it). Both given and different is refused.
 */
export function opIdOf(req: ApiRequest, raw: unknown): string {
  const fromQuery = singleParam(req, 'op_id', 'op_id_invalid');
  const inBody = typeof raw === 'object' && raw !== null && 'op_id' in raw ? raw.op_id : undefined;
  if (inBody !== undefined && (typeof inBody !== 'string' || !isOpId(inBody)))
    throw opIdRefusal("The body's `op_id` is outside the grammar:", inBody);
  if (fromQuery !== null && !isOpId(fromQuery))
    throw opIdRefusal('`?op_id=` is outside the grammar:', fromQuery);
  if (inBody !== undefined && fromQuery !== null && inBody !== fromQuery)
    // Both are in the grammar here: the refusal is their disagreement alone.
    throw new ApiError('op_id_invalid', { detail: 'The body and the query name two different op_ids.' });
  return inBody ?? fromQuery ?? randomUUID();
}

/** A refused write as its catalogued error. */
export function refusedWrite(result: Extract<PageWriteResult, { ok: false }>): ApiError {
  return new ApiError(result.error, { detail: result.detail });
}
