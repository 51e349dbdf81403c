/** Small helpers over plain JSON values shared by the document operations. */
export type Segment = string | number;
export { isRecord, type JsonObject } from '../json.js';
import { isRecord } from '../json.js';

/** A deep copy of a JSON value (documents are plain data). */
export function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Deep equality of JSON values; key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return false;
}

/** `Array.isArray` without widening to `any[]`. */
export const isArray = (value: unknown): value is unknown[] => Array.isArray(value);
