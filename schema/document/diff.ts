/**
 * Differences between two documents (the revision diff route). Entity lists match items by
 * identity, so inserting a seat reads as one `added`, not as every later seat `changed`. Callers
 * redact both sides first.
 */
import { listIdentity } from './collections.js';
import { isArray, isRecord, jsonEqual, type Segment } from './json.js';
import { formatPath } from './paths.js';

export interface Change {
  readonly path: string;
  readonly kind: 'added' | 'removed' | 'changed';
  readonly from?: unknown;
  readonly to?: unknown;
}

export function diffDocuments(
  from: unknown,
  to: unknown,
  opts: { limit?: number } = {},
): { changes: Change[]; changes_total: number } {
  const limit = opts.limit ?? 500;
  const changes: Change[] = [];
  let total = 0;
  const record = (change: Change): void => {
    total += 1;
    if (changes.length < limit) changes.push(change);
  };

  const walk = (a: unknown, b: unknown, segments: Segment[]): void => {
    if (isRecord(a) && isRecord(b)) {
      for (const key of Object.keys(a)) {
        if (!Object.hasOwn(b, key))
          record({ path: formatPath([...segments, key]), kind: 'removed', from: a[key] });
      }
      for (const [key, value] of Object.entries(b)) {
        const at = [...segments, key];
        if (!Object.hasOwn(a, key)) record({ path: formatPath(at), kind: 'added', to: value });
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
          if (!after.has(identity(item) as string))
            record({ path: formatPath([...segments, i]), kind: 'removed', from: item });
        });
        b.forEach((item, i) => {
          const prior = before.get(identity(item) as string);
          if (!prior) record({ path: formatPath([...segments, i]), kind: 'added', to: item });
          else walk(prior.item, item, [...segments, i]);
        });
        return;
      }
    }
    if (!jsonEqual(a, b)) record({ path: formatPath(segments), kind: 'changed', from: a, to: b });
  };

  walk(from, to, []);
  return { changes, changes_total: total };
}
