/**
 * Differences between two documents (the revision diff route). Entity lists match items by
 * identity, so inserting a seat reads as one `added`, not as every later seat `changed`. Callers pass
 * the opened documents and `isSecret`: values are compared as stored and redacted only as shown, so a
 * rotated credential is one change whose two sides are the same marker.
 */
import { listIdentity } from './collections.js';
import { isArray, isRecord, jsonEqual, type Segment } from './json.js';
import { formatPath } from './paths.js';
import { redact, type IsSecret } from './redact.js';

export interface Change {
  readonly path: string;
  readonly kind: 'added' | 'removed' | 'changed';
  readonly from?: unknown;
  readonly to?: unknown;
}

export function diffDocuments(
  from: unknown,
  to: unknown,
  opts: { isSecret: IsSecret; limit?: number },
): { changes: Change[]; changes_total: number } {
  const { isSecret, limit = 500 } = opts;
  const changes: Change[] = [];
  let total = 0;
  const shown = (value: unknown, at: Segment[]): unknown =>
    redact(value, (inner) => isSecret([...at, ...inner]));
  const record = (at: Segment[], kind: Change['kind'], from: unknown, to: unknown): void => {
    total += 1;
    if (changes.length >= limit) return;
    changes.push({
      path: formatPath(at),
      kind,
      ...(kind !== 'added' ? { from: shown(from, at) } : {}),
      ...(kind !== 'removed' ? { to: shown(to, at) } : {}),
    });
  };

  const walk = (a: unknown, b: unknown, segments: Segment[]): void => {
    if (isRecord(a) && isRecord(b)) {
      for (const key of Object.keys(a)) {
        if (!Object.hasOwn(b, key)) record([...segments, key], 'removed', a[key], undefined);
      }
      for (const [key, value] of Object.entries(b)) {
        const at = [...segments, key];
        if (!Object.hasOwn(a, key)) record(at, 'added', undefined, value);
        else walk(a[key], value, at);
      }
      return;
    }
    if (isArray(a) && isArray(b)) {
      const identity = listIdentity(segments);
      const ids = identity ? [...a, ...b].map(identity) : [];
      if (
        identity &&
        ids.every((id) => id !== null) &&
        new Set(ids.slice(0, a.length)).size === a.length &&
        new Set(ids.slice(a.length)).size === b.length
      ) {
        const before = new Map(a.map((item, i) => [identity(item) as string, { item, i }]));
        const after = new Set(b.map((item) => identity(item) as string));
        a.forEach((item, i) => {
          if (!after.has(identity(item) as string)) record([...segments, i], 'removed', item, undefined);
        });
        b.forEach((item, i) => {
          const prior = before.get(identity(item) as string);
          if (!prior) record([...segments, i], 'added', undefined, item);
          else walk(prior.item, item, [...segments, i]);
        });
        return;
      }
    }
    if (!jsonEqual(a, b)) record(segments, 'changed', a, b);
  };

  walk(from, to, []);
  return { changes, changes_total: total };
}
