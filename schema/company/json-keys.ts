/**
 * Repeated keys in JSON text. `JSON.parse` keeps the last of two equal names and drops the first without
 * a word, where the YAML reader refuses them; a configuration write must not lose a setting that way.
 */
import type { Segment } from '../document/json.js';

export interface RepeatedKey {
  /** Path of the repeated key itself. */
  readonly segments: Segment[];
  /** Offset of its second occurrence in the text. */
  readonly offset: number;
}

interface Open {
  /** Names seen so far in an object; null for an array. */
  readonly keys: Set<string> | null;
  /** This container's own segment in its parent (its key or index). */
  readonly segment: Segment;
  /** Next index in an array, or the key just read in an object. */
  at: Segment;
}

/**
 * The first key that repeats within one object of `text`, or null. `text` must be valid JSON (call it
 * after `JSON.parse` accepted it); names compare after unescaping, as `JSON.parse` compares them.
 *
 * @example firstRepeatedKey('{"a": {"b": 1, "b": 2}}') // { segments: ['a', 'b'], offset: 15 }
 */
export function firstRepeatedKey(text: string): RepeatedKey | null {
  const open: Open[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      const top = open.at(-1);
      if (top?.keys && isKey(text, end)) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(name)) return { segments: [...pathOf(open), name], offset: i };
        top.keys.add(name);
        top.at = name;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      const parent = open.at(-1);
      open.push({ keys: c === 0x7b ? new Set() : null, segment: parent?.at ?? '', at: 0 });
    } else if (c === 0x7d || c === 0x5d) open.pop();
    else if (c === 0x2c) {
      const top = open.at(-1);
      if (top && !top.keys) top.at = (top.at as number) + 1;
    }
  }
  return null;
}

/** Offset of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  return text.length;
}

/** A string is a key when the next character past blanks is a colon. */
function isKey(text: string, end: number): boolean {
  for (let i = end + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3a) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return false;
}

/** Segments from the root to the innermost open container's current slot, without that slot. */
function pathOf(open: readonly Open[]): Segment[] {
  const segments: Segment[] = [];
  for (let k = 1; k < open.length; k++) segments.push((open[k] as Open).segment);
  return segments;
}
