/** Reading and writing one value at a document path (setup touches single leaves, not whole entities). */
import { clone, findEntity, isRecord, parsePath, type JsonObject } from '../document/index.js';
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
  // Arrays are stepped into by index (a seat inside `roles`), objects by key.
  let at: Record<string | number, unknown> = out;
  for (const [i, step] of segments.entries()) {
    if (i === segments.length - 1) {
      if (value !== undefined) at[step] = value;
      else if (Array.isArray(at) && typeof step === 'number') at.splice(step, 1);
      else delete at[step];
      break;
    }
    const next = at[step];
    if (!isRecord(next) && !Array.isArray(next)) {
      if (value === undefined) break;
      at[step] = {};
    }
    at = at[step] as Record<string | number, unknown>;
  }
  return out;
}

/** Where a seat sits in the document (any depth), by handle. */
export function seatSegments(doc: unknown, handle: string): Segment[] | null {
  return findEntity(doc, 'roles', handle)?.segments ?? null;
}
