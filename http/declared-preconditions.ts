/**
 * A write route's declared preconditions (`RouteDef.preconditions`): `If-Match` or `If-None-Match` sent to
 * a write route that does not read it is 400 `unsupported_precondition` naming it, so a client is never
 * left believing a check was made (RFC 9110 13.1) that the route, keeping no version, cannot make. An
 * empty header names no precondition. Reads and webhook receivers (whose senders are vendors) are not held
 * to it.
 */
import { ApiError } from './api-error.js';
import { isWrite } from './guard.js';
import type { Precondition, RouteDef } from './types.js';

const spelled: Readonly<Record<Precondition, string>> = {
  'if-match': 'If-Match',
  'if-none-match': 'If-None-Match',
};

/** The refusal of the first precondition header `route` does not read, or null. */
export function undeclaredPrecondition(
  route: RouteDef,
  kind: string,
  headers: Readonly<Record<string, string>>,
): ApiError | null {
  if (!isWrite(route.method) || kind === 'webhook') return null;
  const declared = route.preconditions ?? [];
  for (const header of ['if-match', 'if-none-match'] as const) {
    const value = headers[header];
    if (value === undefined || value.trim() === '' || declared.includes(header)) continue;
    const path = route.pattern.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}');
    const takes = declared.map((h) => spelled[h]);
    return new ApiError('unsupported_precondition', {
      detail: `${route.method} ${path} keeps no version to compare ${spelled[header]} with; nothing was done`,
      hint:
        takes.length === 0
          ? 'Send the request without If-Match or If-None-Match: this route takes no precondition.'
          : `Send the request without ${spelled[header]}: this route takes ${takes.join(' and ')} only.`,
    });
  }
  return null;
}
