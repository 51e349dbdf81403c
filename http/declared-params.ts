/**
 * A route's declared query parameters (`RouteDef.query`): any other is 400 `bad_params` naming it, with the
 * parameter meant for a near miss, in the history questions' wording (schema/did-you-mean.ts), so a typo
 * (`GET /work?asignee=ada`) is refused rather than read as a list without that filter.
 */
import { unreadParam } from '../schema/index.js';
import { ApiError } from './api-error.js';
import type { RouteDef } from './types.js';

/** The refusal of the first parameter of `query` outside `known`, or null; `what` names the reader. */
export function unreadParamError(
  query: URLSearchParams,
  what: string,
  known: readonly string[],
): ApiError | null {
  const unread = unreadParam(query.keys(), what, known);
  return unread === null ? null : new ApiError('bad_params', unread);
}

/** The refusal of a parameter `route` does not declare (`GET /work/{id} does not read ...`), or null. */
export function undeclaredParam(route: RouteDef, query: URLSearchParams): ApiError | null {
  if (route.query === undefined) return null;
  const path = route.pattern.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}');
  return unreadParamError(query, `${route.method} ${path}`, route.query);
}
