/**
 * A request's JSON body, read one way by every route: not JSON, or not the route's shape, is 400
 * `invalid_body` with `problems` (the spec's code for a body that does not parse or does not fit).
 */
import type { z } from 'zod';
import { repeatedKeyProblem } from '../schema/index.js';
import { ApiError, bodyProblems, wholeBodyProblem } from './api-error.js';
import type { ApiRequest } from './types.js';

/**
 * The parsed body; an empty body is `{}`, a body that is not JSON is refused. `uniqueKeys`: a key
 * repeated in one object is refused too (at its path, as a configuration document's is), where
 * `JSON.parse` would keep the last value and drop the first without a word.
 */
export function jsonValue(req: ApiRequest, opts: { readonly uniqueKeys?: boolean } = {}): unknown {
  if (req.body.length === 0) return {};
  const text = req.body.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('invalid_body', {
      detail: 'The body is not JSON.',
      hint: 'Send a JSON object or nothing.',
      extra: { problems: wholeBodyProblem('expected a JSON object') },
    });
  }
  const repeated = opts.uniqueKeys ? repeatedKeyProblem(text) : null;
  if (repeated !== null) {
    throw new ApiError('invalid_body', {
      detail: 'The body names a key twice in one object.',
      hint: 'Send each key once.',
      extra: { problems: [repeated] },
    });
  }
  return value;
}

/** How a refusal describes the expected shape (default: "The body does not fit the route"). */
interface Expected {
  readonly detail?: string;
  readonly hint?: string;
  /** Refuse a key repeated in one object (`jsonValue`). */
  readonly uniqueKeys?: boolean;
}

/** The body validated by `schema`. */
export function jsonBody<T>(req: ApiRequest, schema: z.ZodType<T>, expected: Expected = {}): T {
  return fitBody(jsonValue(req, { uniqueKeys: expected.uniqueKeys ?? false }), schema, expected);
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
