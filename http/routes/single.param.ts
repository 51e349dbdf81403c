/**
 * A query parameter a route reads one value of. `URLSearchParams.get` keeps the first of a repeated one
 * and drops the rest without a word (`?source=a&source=b` would store `a`): a repeat is refused instead,
 * 400 `invalid_query` naming the parameter, since either value could be the one meant.
 */
import { ApiError } from '../api-error.js';
import type { RequestHead } from '../types.js';

/** The one value of `name`, null when absent; given more than once is 400 `invalid_query`. */
export function singleParam(req: RequestHead, name: string): string | null {
  const all = req.query.getAll(name);
  if (all.length > 1)
    throw new ApiError('invalid_query', {
      detail: `${name} is given ${all.length} times; it takes one value`,
      hint: `Give ${name} once.`,
    });
  return all[0] ?? null;
}
