/**
 * The retry handle (`op_id`) of every write that takes one, judged in one place (spec Errors: 400
 * `op_id_invalid` for a handle outside the grammar of 1 to 128 bytes of visible ASCII). In the body a value
 * that is not a string (`op_id: 5`) is outside it too, and is refused as such rather than as a body that
 * does not fit; `?op_id=` given twice, or a body and query naming two, leave the handle unknown.
 */
import type { z } from 'zod';
import { opIdProblem } from '../../schema/index.js';
import { ApiError } from '../api-error.js';
import { fitBody, jsonValue } from '../json-body.js';
import type { ApiRequest, RequestHead } from '../types.js';
import { singleParam } from './single.param.js';

const refusal = (where: string, problem: string): ApiError =>
  new ApiError('op_id_invalid', { detail: `${where}: ${problem}` });

/** Which rule a given `op_id` breaks (a value that is not a string breaks the first), or null. */
export function opIdValueProblem(value: unknown): string | null {
  return typeof value === 'string'
    ? opIdProblem(value)
    : `op_id is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}; it must be a string of 1 to 128 bytes of visible ASCII`;
}

const judged = (where: string, value: unknown): string => {
  const problem = opIdValueProblem(value);
  if (problem !== null) throw refusal(where, problem);
  return value as string;
};

/** The `op_id` field of a parsed body: undefined when absent; refused when not a string in the grammar. */
export function bodyOpId(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !('op_id' in raw)) return undefined;
  const value: unknown = raw.op_id;
  return value === undefined ? undefined : judged("the body's `op_id`", value);
}

/** `?op_id=`, null when absent; given twice or outside the grammar is refused. */
export function queryOpId(req: RequestHead): string | null {
  const value = singleParam(req, 'op_id', 'op_id_invalid');
  return value === null ? null : judged('`?op_id=`', value);
}

/** `?op_id=` checked before the body is read (a write is refused before anything happens). */
export function checkQueryOpId(req: RequestHead): void {
  queryOpId(req);
}

/**
 * The write's op_id: the body's (`fromBody`, the field as sent), else `?op_id=`, else `fresh()` (the answer
 * names it, so the caller can retry with it). Both given and different is refused: either could be meant.
 */
export function opIdOf(req: ApiRequest, fromBody: unknown, fresh: () => string): string {
  const inBody = fromBody === undefined ? undefined : judged("the body's `op_id`", fromBody);
  const fromQuery = queryOpId(req);
  if (inBody !== undefined && fromQuery !== null && inBody !== fromQuery)
    throw new ApiError('op_id_invalid', {
      detail: 'The body and the query name two different op_ids; send one, or the same in both.',
    });
  return inBody ?? fromQuery ?? fresh();
}

/**
 * A write's JSON body fitted to `schema`, its retry handle (body and query) judged first, so a bad handle
 * is `op_id_invalid` whatever else the body gets wrong, on every write alike.
 */
export function writeBody<T>(req: ApiRequest, schema: z.ZodType<T>): T {
  const raw = jsonValue(req);
  opIdOf(req, bodyOpId(raw), () => '');
  return fitBody(raw, schema);
}
