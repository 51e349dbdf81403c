/**
 * The replay's scanner over a stored event's head: the bytes of the top-level object before `,"payload":`,
 * read in place with no string or object made. It accepts only what it can vouch for: a head that
 * `JSON.parse` + `checkRow` (see `events.decode.ts`) would read as a row, with the payload key reached the
 * same way (`,"payload":` with no space, as `publishEvent` writes). The fields the index needs (id, type,
 * timestamp, seat, trace) are left as byte ranges, and only when they hold plain ASCII with no escape.
 * This file reads the writer's exact layout and holds the JSON string reader; any other key order or
 * spacing is read by `scanAnyOrder` (events.anyorder.ts). Anything else (an escape or non-ASCII byte in one
 * of those, a nested or numeric value, odd spacing, a missing key) answers false and the caller decodes the
 * record the general way, so the outcome is the same.
 */

/** Where the head's fields are; `*End` is exclusive; -1 starts mean absent. Reused from record to record. */
export class Head {
  idStart = -1;
  idEnd = -1;
  typeStart = -1;
  typeEnd = -1;
  timestampStart = -1;
  timestampEnd = -1;
  categoryStart = -1;
  categoryEnd = -1;
  agentStart = -1;
  agentEnd = -1;
  traceStart = -1;
  traceEnd = -1;
  topic = false;
  failed = false;
  /** Offset of the `,` before `"payload"`: the head is bytes [0, end) plus `}`. */
  end = -1;
}

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export const kb = (k: string): Uint8Array => Buffer.from(k, 'latin1');

export function eq(b: Uint8Array, start: number, k: Uint8Array): boolean {
  for (let i = 0; i < k.length; i += 1) if (b[start + i] !== k[i]) return false;
  return true;
}

const isHex = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/**
 * Whether the string `skipString` last passed held only ASCII and no escape. A module variable, not a
 * return value, so a string costs no object; events.anyorder.ts reads it through the live import binding.
 */
export let plain = false;

/** Byte classes inside a JSON string: 0 plain ASCII, 1 `"`, 2 `\\`, 3 control (invalid), 4 non-ASCII. */
const byteClass = new Uint8Array(256);
for (let c = 0; c < 256; c += 1)
  byteClass[c] = c < 0x20 ? 3 : c === QUOTE ? 1 : c === BACKSLASH ? 2 : c >= 0x80 ? 4 : 0;

/**
 * Skips a JSON string starting at the opening quote `at`; returns the offset after the closing quote, or -1
 * when it is not a valid JSON string. Sets `plain`.
 */
export function skipString(b: Uint8Array, at: number, n: number): number {
  let i = at + 1;
  let simple = true;
  for (;;) {
    let k = 0;
    // One table load a byte for the common run of plain characters.
    while (i < n && (k = byteClass[b[i] as number] as number) === 0) i += 1;
    if (i >= n) return -1;
    if (k === 1) {
      plain = simple;
      return i + 1;
    }
    if (k === 4) {
      simple = false;
      i += 1;
      continue;
    }
    if (k === 3) return -1;
    simple = false;
    const e = b[i + 1];
    if (e === 0x75 /* u */) {
      for (let j = 2; j <= 5; j += 1) if (!isHex(b[i + j] ?? 0)) return -1;
      i += 6;
      continue;
    }
    if (
      e !== QUOTE &&
      e !== BACKSLASH &&
      e !== 0x2f &&
      e !== 0x62 &&
      e !== 0x66 &&
      e !== 0x6e &&
      e !== 0x72 &&
      e !== 0x74
    )
      return -1;
    i += 2;
  }
}

export function literal(b: Uint8Array, at: number, text: string): boolean {
  for (let k = 0; k < text.length; k += 1) if (b[at + k] !== text.charCodeAt(k)) return false;
  return true;
}

// ---- the writer's order ------------------------------------------------------------------------------

/** Each key with what precedes it and, for a string value, its opening quote. */
const W = {
  id: kb('{"id":"'),
  type: kb(',"type":"'),
  source: kb(',"source":"'),
  timestamp: kb(',"timestamp":"'),
  category: kb(',"category":"'),
  summary: kb(',"summary":"'),
  actor: kb(',"actor":"'),
  trace_id: kb(',"trace_id":"'),
  span_id: kb(',"span_id":"'),
  parent_span_id: kb(',"parent_span_id":'),
  failed: kb(',"failed":'),
  agent_id: kb(',"agent_id":"'),
  topic: kb(',"topic":"'),
  payload: kb(',"payload":'),
};

/** The value range `stringAfter` last read. */
let valueStart = 0;
let valueEnd = 0;

/**
 * Reads `key` (ending in the value's opening quote) and its string value at `at`; the offset after the
 * closing quote, or -1. Sets `valueStart`/`valueEnd` and `plain`.
 */
function stringAfter(b: Uint8Array, at: number, n: number, key: Uint8Array): number {
  if (!eq(b, at, key)) return -1;
  const open = at + key.length - 1;
  const end = skipString(b, open, n);
  valueStart = open + 1;
  valueEnd = end - 1;
  return end;
}

/**
 * The head exactly as `newEvent` + `publishEvent` write it (compact JSON, keys in the record's declared
 * order, `agent_id` and `topic` optional, the payload last): every key is checked once where it must be,
 * with no key lookup. Anything else answers false, and `scanAnyOrder` reads it.
 */
export function scanWriterOrder(b: Uint8Array, h: Head): boolean {
  const n = b.length;
  let i = stringAfter(b, 0, n, W.id);
  if (i < 0 || !plain || valueEnd === valueStart) return false;
  h.idStart = valueStart;
  h.idEnd = valueEnd;
  i = stringAfter(b, i, n, W.type);
  if (i < 0 || !plain || valueEnd === valueStart) return false;
  h.typeStart = valueStart;
  h.typeEnd = valueEnd;
  i = stringAfter(b, i, n, W.source);
  if (i < 0) return false;
  i = stringAfter(b, i, n, W.timestamp);
  if (i < 0 || !plain) return false;
  h.timestampStart = valueStart;
  h.timestampEnd = valueEnd;
  i = stringAfter(b, i, n, W.category);
  if (i < 0 || !plain) return false;
  h.categoryStart = valueStart;
  h.categoryEnd = valueEnd;
  i = stringAfter(b, i, n, W.summary);
  if (i < 0) return false;
  i = stringAfter(b, i, n, W.actor);
  if (i < 0) return false;
  i = stringAfter(b, i, n, W.trace_id);
  if (i < 0 || !plain) return false;
  h.traceStart = valueStart;
  h.traceEnd = valueEnd;
  i = stringAfter(b, i, n, W.span_id);
  if (i < 0 || !eq(b, i, W.parent_span_id)) return false;
  i += W.parent_span_id.length;
  if (b[i] === QUOTE) i = skipString(b, i, n);
  else if (literal(b, i, 'null')) i += 4;
  else return false;
  if (i < 0 || !eq(b, i, W.failed)) return false;
  i += W.failed.length;
  if (literal(b, i, 'false')) {
    h.failed = false;
    i += 5;
  } else if (literal(b, i, 'true')) {
    h.failed = true;
    i += 4;
  } else return false;
  h.agentStart = -1;
  if (eq(b, i, W.agent_id)) {
    i = stringAfter(b, i, n, W.agent_id);
    if (i < 0 || !plain) return false;
    h.agentStart = valueStart;
    h.agentEnd = valueEnd;
  }
  h.topic = false;
  if (eq(b, i, W.topic)) {
    i = stringAfter(b, i, n, W.topic);
    if (i < 0) return false;
    h.topic = true;
  }
  if (!eq(b, i, W.payload)) return false;
  h.end = i;
  return true;
}
