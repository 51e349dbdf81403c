/**
 * Write rule 8: keys this build does not know (written by a newer one) survive writes. They are
 * carried from the stored document into the incoming one at the same entity, matched by identity; a
 * renamed seat or unit keeps nothing, and a key the incoming document sets itself wins.
 */
import { pairItems } from './collections.js';
import { clone, isArray, isRecord, type JsonObject, type Segment } from './json.js';
import type { KnownKeysAt } from './merge-patch.js';

/**
 * The incoming document with the stored one's unknown keys carried in. `carried`, when given, receives
 * the path of every unknown key the result holds that the stored document holds at the same entity
 * (carried, or sent back as read): what validation lets pass, since this build cannot judge it.
 */
export function carryUnknownKeys(
  incoming: unknown,
  stored: unknown,
  knownKeysAt: KnownKeysAt,
  carried?: Segment[][],
): unknown {
  // The schema's answer depends on the shape of the path, not on list positions: ask once per shape.
  const memo = new Map<string, ReturnType<KnownKeysAt>>();
  const known = (segments: Segment[]): ReturnType<KnownKeysAt> => {
    const shape = segments.map((s) => (typeof s === 'number' ? '#' : s)).join('\u0000');
    let answer = memo.get(shape);
    if (answer === undefined) memo.set(shape, (answer = knownKeysAt(segments)));
    return answer;
  };
  const walk = (value: unknown, before: unknown, segments: Segment[]): unknown => {
    if (isArray(value)) {
      const pairs = pairItems(segments, value, before);
      return value.map((item, i) => (pairs[i] === undefined ? item : walk(item, pairs[i], [...segments, i])));
    }
    if (!isRecord(value) || !isRecord(before)) return value;
    const knownHere = known(segments);
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      out[key] = walk(child, before[key], [...segments, key]);
      if (knownHere !== 'any' && !knownHere.has(key) && Object.hasOwn(before, key))
        carried?.push([...segments, key]);
    }
    if (knownHere !== 'any') {
      for (const [key, child] of Object.entries(before)) {
        if (!knownHere.has(key) && !Object.hasOwn(value, key)) {
          out[key] = clone(child);
          carried?.push([...segments, key]);
        }
      }
    }
    return out;
  };
  return walk(incoming, stored, []);
}

/** The path of every key of a stored document this build does not know (a newer build wrote them). */
export function unknownKeyPaths(document: unknown, knownKeysAt: KnownKeysAt): Segment[][] {
  const found: Segment[][] = [];
  carryUnknownKeys(document, document, knownKeysAt, found);
  return found;
}

/** A copy of a stored document without the keys this build does not know: what it can run. */
export function withoutUnknownKeys(document: unknown, knownKeysAt: KnownKeysAt): unknown {
  const paths = unknownKeyPaths(document, knownKeysAt);
  if (paths.length === 0) return document;
  const copy = clone(document);
  for (const path of paths) {
    let at: unknown = copy;
    for (const segment of path.slice(0, -1)) {
      if (isArray(at) && typeof segment === 'number') at = at[segment];
      else if (isRecord(at) && typeof segment === 'string') at = at[segment];
      else at = undefined;
    }
    const key = path[path.length - 1];
    if (isRecord(at) && typeof key === 'string') delete at[key];
  }
  return copy;
}
