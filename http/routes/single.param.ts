/**
 * A query parameter a route reads one value of. `URLSearchParams.get` keeps the first of a repeated one
 * and drops the rest without a word (`?source=a&source=b` would store `a`): a repeat is refused instead,
 * 400 naming the parameter, since either value could be the one meant. The code is the one the route's
 * family answers a bad value of its query with (`invalid_query`, `bad_params`, ...), so a caller meets
 * one code per family (ops/errors.md).
 */
import type { ErrorCode } from '../../schema/index.js';
import { ApiError } from '../api-error.js';
import type { RequestHead } from '../types.js';

const repeated = (code: ErrorCode, name: string, times: number): ApiError =>
  new ApiError(code, {
    detail: `${name} is given ${times} times; it takes one value`,
    hint: `Give ${name} once.`,
  });

/**
 * The one value of `name` in `query`, null when absent, or how many times it is given when repeated: for
 * a route whose refusal is not a 400 (a landing page, a credential in the query).
 */
export function queryValue(query: URLSearchParams, name: string): string | null | { repeated: number } {
  const all = query.getAll(name);
  return all.length > 1 ? { repeated: all.length } : (all[0] ?? null);
}

/** The one value of `name` in `query`, null when absent; given more than once is 400 `code`. */
export function oneValue(
  query: URLSearchParams,
  name: string,
  code: ErrorCode = 'invalid_query',
): string | null {
  const value = queryValue(query, name);
  if (typeof value === 'object' && value !== null) throw repeated(code, name, value.repeated);
  return value;
}

/** The one value of `name`, null when absent; given more than once is 400 `code` (`invalid_query`). */
export function singleParam(
  req: RequestHead,
  name: string,
  code: ErrorCode = 'invalid_query',
): string | null {
  return oneValue(req.query, name, code);
}

/**
 * Refuses any parameter of `query` given more than once, except the `repeatable` ones (a filter that
 * takes a list): for a read that hands its whole query on to an answer reading it by `get`.
 */
export function refuseRepeats(
  query: URLSearchParams,
  code: ErrorCode,
  repeatable: readonly string[] = [],
): void {
  for (const name of new Set(query.keys())) if (!repeatable.includes(name)) oneValue(query, name, code);
}
