/**
 * Write rule 8: keys this build does not know (written by a newer one) survive writes. They are
 * carried from the stored document into the incoming one at the same entity, matched by identity; a
 * renamed seat or unit keeps nothing, and a key the incoming document sets itself wins.
 */
import { pairItems } from './collections.js';
import { clone, isArray, isRecord, type JsonObject, type Segment } from './json.js';
import type { KnownKeysAt } from './merge-patch.js';

export function carryUnknownKeys(incoming: unknown, stored: unknown, knownKeysAt: KnownKeysAt): unknown {
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
    for (const [key, child] of Object.entries(value)) out[key] = walk(child, before[key], [...segments, key]);
    if (knownHere !== 'any') {
      for (const [key, child] of Object.entries(before)) {
        if (!knownHere.has(key) && !Object.hasOwn(value, key)) out[key] = clone(child);
      }
    }
    return out;
  };
  return walk(incoming, stored, []);
}
