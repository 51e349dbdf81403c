/**
 * Nesting limits of the company document. Every walker of a document (redaction, diff, validation,
 * the YAML and JSON serialisers) recurses once per level, so a document nested thousands of levels
 * deep overflows the stack. These checks are iterative: they cannot overflow on the input they judge.
 *
 * Depth counts containers (maps and lists) on the deepest path: `{}` is 1, `{"a": [1]}` is 2.
 */
import { isRecord, type Segment } from './json.js';

/** Writes refuse a document (or body) nested deeper than this (ops/config.md says why 64). */
export const MAX_DOCUMENT_DEPTH = 64;

/**
 * Reads render stored documents up to this depth, which every read walker handles with a wide
 * margin (the YAML serialiser is the shallowest: it overflows near 640). A deeper one, stored by an
 * earlier release, answers a coded refusal instead.
 */
export const MAX_RENDER_DEPTH = 256;

interface Frame {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Frame | null;
  readonly key: Segment;
}

/**
 * The path of the first container nested deeper than `limit`, or null when the value is within it.
 * A cycle (a self-referencing YAML alias) is infinitely deep and so always beyond.
 *
 * @example depthBeyond({ a: { b: {} } }, 2) // ['a', 'b']
 */
export function depthBeyond(value: unknown, limit: number): Segment[] | null {
  const stack: Frame[] = [{ value, depth: 1, parent: null, key: '' }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const children = childrenOf(frame.value);
    if (children === null) continue;
    if (frame.depth > limit) return pathTo(frame);
    for (const [key, child] of children)
      stack.push({ value: child, depth: frame.depth + 1, parent: frame, key });
  }
  return null;
}

function childrenOf(value: unknown): Array<[Segment, unknown]> | null {
  if (Array.isArray(value)) return value.map((item, i): [Segment, unknown] => [i, item]);
  if (isRecord(value)) return Object.entries(value);
  return null;
}

function pathTo(frame: Frame): Segment[] {
  const segments: Segment[] = [];
  for (let at: Frame | null = frame; at?.parent; at = at.parent) segments.push(at.key);
  return segments.reverse();
}

/**
 * Scans JSON text for nesting deeper than `limit` before it is parsed: the offset of the bracket that
 * crosses it, or null. Brackets inside strings do not count; the text need not be valid JSON.
 */
export function jsonTextDepthBeyond(text: string, limit: number): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > limit) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return null;
}
