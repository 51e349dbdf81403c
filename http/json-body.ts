/**
 * A request's JSON body, read one way by every route: not JSON, or not the route's shape, is 400
 * `invalid_body` with `problems` (the spec's code for a body that does not parse or does not fit).
 */
import type { z } from 'zod';
import { ApiError, bodyProblems, wholeBodyProblem } from './api-error.js';
import type { ApiRequest } from './types.js';

/** The parsed body; an empty body is `{}`, a body that is not JSON is refused. */
export function jsonValue(req: ApiRequest): unknown {
  if (req.body.length === 0) return {};
  try {
    return JSON.parse(req.body.toString('utf8')) as unknown;
  } catch {
    throw new ApiError('invalid_body', {
      detail: 'The body is not JSON.',
      hint: 'Send a JSON object or nothing.',
      extra: { problems: wholeBodyProblem('expected a JSON object') },
    });
  }
}

/** How a refusal describes the expected shape (default: "The body does not fit the route"). */
interface Expected {
  readonly detail?: string;
  readonly hint?: string;
}

/** The body validated by `schema`. */
export function jsonBody<T>(req: ApiRequest, schema: z.ZodType<T>, expected: Expected = {}): T {
  return fitBody(jsonValue(req), schema, expected);
}

/** An already parsed body validated by `schema` (for routes that read a field, such as `op_id`, first). */
export function fitBody<T>(raw: unknown, schema: z.ZodType<T>, expected: Expected = {}): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new ApiError('invalid_body', {
    detail: expected.detail ?? 'The body does not fit the route (see `problems`).',
    ...(expected.hint === undefined ? {} : { hint: expected.hint }),
    extra: { problems: bodyProblems(parsed.error.issues) },
  });
}
