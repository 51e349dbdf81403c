/** Small readers for vendor JSON: every field may be missing or of another type. */
import { isRecord } from '../../schema/index.js';
export { isRecord };

export function at(v: unknown, ...path: string[]): unknown {
  let cur = v;
  for (const key of path) cur = isRecord(cur) ? cur[key] : undefined;
  return cur;
}

/** A string or number at a path, as a string; null otherwise. */
export function str(v: unknown, ...path: string[]): string | null {
  const x = at(v, ...path);
  return typeof x === 'string' && x !== '' ? x : typeof x === 'number' ? String(x) : null;
}

export const arr = (v: unknown, ...path: string[]): unknown[] => {
  const x = at(v, ...path);
  return Array.isArray(x) ? x : [];
};

/** Drops undefined fields so zod's optional fields stay absent. */
export function compact<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as T;
}
