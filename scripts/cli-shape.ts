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

/** The answer's text read as `shape`; `what` names it in the message (`an agent`, `a list of agent rows`). */
export function readAnswer<T>(shape: Shape<T>, text: string, what: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AnswerShapeError(`the node's answer is not JSON, not ${what}`);
  }
  try {
    return shape(json, '');
  } catch (error) {
    if (!(error instanceof AnswerShapeError)) throw error;
    throw new AnswerShapeError(`the node's answer is not ${what} (${error.message}); --json prints it as is`);
  }
}
