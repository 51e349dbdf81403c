/**
 * The shape a client command reads a node's answer through, checked field by field. Not zod: a client command
 * loads no package (client-command-loads.e2e.test.ts), and it needs only the fields it prints. Extra fields
 * pass; a missing or mistyped one is named, so a node of another release is said to answer differently
 * instead of being printed half right.
 */

/** An answer without a field the command prints, or with one of another type. */
export class AnswerShapeError extends Error {
  override name = 'AnswerShapeError';
}

/** Reads `value` (at `path`, for the message) as a T, or throws `AnswerShapeError`. */
export type Shape<T> = (value: unknown, path: string) => T;

const fail = (path: string, expected: string): never => {
  throw new AnswerShapeError(`${path || '(answer)'}: expected ${expected}`);
};

export const str: Shape<string> = (v, p) => (typeof v === 'string' ? v : fail(p, 'a string'));
export const num: Shape<number> = (v, p) => (typeof v === 'number' ? v : fail(p, 'a number'));
export const bool: Shape<boolean> = (v, p) => (typeof v === 'boolean' ? v : fail(p, 'true or false'));

/** Null as null; anything else as `shape`. */
export const nullable =
  <T>(shape: Shape<T>): Shape<T | null> =>
  (v, p) =>
    v === null ? null : shape(v, p);

/** Absent or null (a field of a later release, or one an older node leaves out) as null. */
export const nullish =
  <T>(shape: Shape<T>): Shape<T | null> =>
  (v, p) =>
    v === null || v === undefined ? null : shape(v, p);

export const list =
  <T>(shape: Shape<T>): Shape<T[]> =>
  (v, p) =>
    Array.isArray(v) ? v.map((item, i) => shape(item, `${p}[${i}]`)) : fail(p, 'a list');

type Fields = Record<string, Shape<unknown>>;
type Read<F extends Fields> = { [K in keyof F]: ReturnType<F[K]> };

/** An object with (at least) these fields, each read by its shape; other fields are left out. */
export const obj =
  <F extends Fields>(fields: F): Shape<Read<F>> =>
  (v, p) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(p, 'an object');
    const source = v as Record<string, unknown>;
    const read: Record<string, unknown> = {};
    for (const [name, shape] of Object.entries(fields))
      read[name] = shape(source[name], p ? `${p}.${name}` : name);
    return read as Read<F>;
  };

/**
 * A 2xx answer's text as JSON, or `AnswerShapeError`: every answer a client command reads is JSON, so one that
 * is not (a proxy's sign-in page, a body cut short) came from something else at that address.
 */
export function nodeJson(status: number, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AnswerShapeError(
      `HTTP ${status} answer is not JSON, so not the node's own answer: check that --url / $SVC_URL is the node's api.host:api.port, or the proxy in front of it (a write's outcome is unknown)`,
    );
  }
}

/** Any JSON value at all (a field printed as it came). */
export const anyJson: Shape<unknown> = (v) => v;

/** An object kept whole, every field as it came (labels, an event printed as it came). */
export const record: Shape<Record<string, unknown>> = (v, p) =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : fail(p, 'an object');

/**
 * The answer's text read as `shape`; `what` names it in the message (`an agent`, `a list of agent rows`).
 * `asIs`: the command has a `--json` that prints the answer unread, which the message then offers.
 */
export function readAnswer<T>(
  shape: Shape<T>,
  text: string,
  what: string,
  opts: { readonly status?: number; readonly asIs?: boolean } = {},
): T {
  const json = nodeJson(opts.status ?? 200, text);
  try {
    return shape(json, '');
  } catch (error) {
    if (!(error instanceof AnswerShapeError)) throw error;
    const asIs = opts.asIs === false ? '' : '; --json prints it as is';
    throw new AnswerShapeError(`the node's answer is not ${what} (${error.message})${asIs}`);
  }
}
