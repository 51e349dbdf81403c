/** Reading and writing one value at a document path (setup touches single leaves, not whole entities). */
import { clone, findEntity, isObject, parsePath, type JsonObject } from '../document/index.js';
import type { Segment } from '../company/index.js';

export function valueAt(doc: unknown, segments: readonly Segment[]): unknown {
  let at: unknown = doc;
  for (const step of segments) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string | number, unknown>)[step];
  }
  return at;
}

export const segmentsOf = (path: string): Segment[] => parsePath(path);

/** A copy of `doc` with `value` set at `segments` (intermediate objects created); `undefined` deletes. */
export function withValue(doc: JsonObject, segments: readonly Segment[], value: unknown): JsonObject {
  const out = clone(doc);
  let at: JsonObject = out;
  for (const [i, step] of segments.entries()) {
    const key = String(step);
    if (i === segments.length - 1) {
      if (value === undefined) delete at[key];
      else at[key] = value;
      break;
    }
    const next = at[key];
    if (!isObject(next)) {
      if (value === undefined) break;
      at[key] = {};
    }
    at = at[key] as JsonObject;
  }
  return out;
}

/** Where a seat sits in the document (any depth), by handle. */
export function seatSegments(doc: unknown, handle: string): Segment[] | null {
  return findEntity(doc, 'roles', handle)?.segments ?? null;
}
