/** The error a handler throws to refuse a request; rendered as `{error, detail, hint, ...extra}`. */
import { errorCatalogue, errorUse } from '../schema/index.js';
import type { ErrorBody, ErrorCode, ErrorVariant } from '../schema/index.js';
import type { ApiReply } from './reply.js';

export interface ApiErrorOptions<C extends ErrorCode> {
  /** A named use of the code with its own status (e.g. `no_active_revision` `on_write` → 409). */
  readonly variant?: ErrorVariant<C>;
  /** Replaces the catalogue's detail. Never put a credential, a fragment of one, or a vendor's body here. */
  readonly detail?: string;
  readonly hint?: string;
  /** Code-specific fields (`problems`, `stored_revision_id`, `managed_by`); cannot replace error/detail/hint. */
  readonly extra?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

/**
 * A catalogued refusal. The status comes from the catalogue, never from the thrower.
 * @example throw new ApiError('no_active_revision', { variant: 'on_write' }); // 409
 */
export class ApiError<C extends ErrorCode = ErrorCode> extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly detail: string;
  readonly hint: string;
  readonly extra: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: C,
    opts: ApiErrorOptions<C> = {},
  ) {
    const reply = errorReply(code, opts);
    super(`${code}: ${reply.body.detail}`, { cause: opts.cause });
    this.status = reply.status;
    this.detail = reply.body.detail;
    this.hint = reply.body.hint;
    this.extra = opts.extra ?? {};
    this.headers = reply.headers;
  }

  /** The answer this error renders to. */
  toReply(): ApiReply {
    const body = { ...this.extra, error: this.code, detail: this.detail, hint: this.hint };
    return { status: this.status, headers: this.headers, body };
  }
}

/**
 * The answer for a catalogued refusal, without building an Error (no stack capture): the gateway's own
 * refusals (401, 404, 405, 503) are on the hot path.
 */
export function errorReply<C extends ErrorCode>(
  code: C,
  opts: Omit<ApiErrorOptions<C>, 'cause'> = {},
): { status: number; headers: Record<string, string>; body: ErrorBody } {
  const use = errorUse(code, opts.variant);
  const retryAfter = (errorCatalogue[code] as { retryAfterSeconds?: number }).retryAfterSeconds;
  return {
    status: use.status,
    headers:
      retryAfter === undefined ? { ...opts.headers } : { 'Retry-After': String(retryAfter), ...opts.headers },
    body: { ...opts.extra, error: code, detail: opts.detail ?? use.detail, hint: opts.hint ?? use.hint },
  };
}

/** Answers without a code (spec: 500 and webhook 503 "(none)"): the outcome is not promised. */
export function codelessReply(
  status: number,
  detail: string,
  hint: string,
  headers?: Record<string, string>,
): ApiReply {
  return { status, body: { detail, hint }, ...(headers ? { headers } : {}) };
}

/** An entry of an `invalid_body` answer's `problems[]` (spec "Errors": the problems are carried). */
export interface BodyProblem {
  readonly path: string;
  readonly segments: ReadonlyArray<string | number>;
  readonly kind: 'shape' | 'unknown_field';
  readonly message: string;
}

/** `problems[]` from a schema's issues (zod's shape: a path, a code, a message). */
export function bodyProblems(
  issues: ReadonlyArray<{
    readonly path: ReadonlyArray<PropertyKey>;
    readonly code: string;
    readonly message: string;
    readonly keys?: readonly string[];
  }>,
): BodyProblem[] {
  const problem = (path: ReadonlyArray<PropertyKey>, kind: BodyProblem['kind'], message: string) => ({
    path: path.map(String).join('.'),
    segments: path.map((s) => (typeof s === 'number' ? s : String(s))),
    kind,
    message,
  });
  // Each unknown key at its own path, as a document's problems name theirs.
  return issues.flatMap((i) =>
    i.code === 'unrecognized_keys' && i.keys !== undefined && i.keys.length > 0
      ? i.keys.map((key) => problem([...i.path, key], 'unknown_field', `unknown field \`${key}\``))
      : [problem(i.path, i.code === 'unrecognized_keys' ? 'unknown_field' : 'shape', i.message)],
  );
}

/** The one problem of a body that is wrong as a whole (not JSON, not an object). */
export const wholeBodyProblem = (message: string): BodyProblem[] => [
  { path: '', segments: [], kind: 'shape', message },
];
