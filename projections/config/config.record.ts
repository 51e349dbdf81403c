/**
 * Splits a stored revision record (JSON bytes) into its metadata, parsed, and its payload, left as
 * bytes. A replay folds every revision ever stored but keeps only a few documents: parsing each one
 * whole only to drop it made boot memory grow with history (the collector lags a fast replay), so the
 * payload is skipped over by a scan and parsed only when a reader asks for it.
 */

const decoder = new TextDecoder();

/** The record without `payload`, and the payload's JSON bytes (null when the record has none). */
export interface SplitRecord {
  readonly head: Record<string, unknown>;
  readonly payload: Uint8Array | null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const isSpace = (b: number | undefined): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** Index just past the string opening at `i`. UTF-8 continuation bytes never equal a quote or backslash. */
function skipString(data: Uint8Array, i: number): number {
  for (let j = i + 1; j < data.length; j += 1) {
    const b = data[j];
    if (b === BACKSLASH) j += 1;
    else if (b === QUOTE) return j + 1;
  }
  throw new SyntaxError('unterminated string');
}

/** Index just past the value starting at `i` (nesting counted, strings skipped; not validated). */
function skipValue(data: Uint8Array, i: number): number {
  const first = data[i];
  if (first === QUOTE) return skipString(data, i);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    for (let j = i; j < data.length; j += 1) {
      const b = data[j];
      if (b === QUOTE) j = skipString(data, j) - 1;
      else if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth += 1;
      else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        depth -= 1;
        if (depth === 0) return j + 1;
      }
    }
    throw new SyntaxError('unterminated value');
  }
  let j = i;
  while (j < data.length && data[j] !== COMMA && data[j] !== CLOSE_OBJECT && !isSpace(data[j])) j += 1;
  if (j === i) throw new SyntaxError('missing value');
  return j;
}

function skipSpace(data: Uint8Array, i: number): number {
  let j = i;
  while (isSpace(data[j])) j += 1;
  return j;
}

/**
 * The top-level members of a JSON object: every one but `payload` parsed together, `payload` sliced
 * (copied, so the message buffer is not kept alive). Null when `data` is not a JSON object; a payload
 * that is not valid JSON fails when it is parsed, as a malformed record would have.
 */
export function splitRecord(data: Uint8Array): SplitRecord | null {
  try {
    let i = skipSpace(data, 0);
    if (data[i] !== OPEN_OBJECT) return null;
    i = skipSpace(data, i + 1);
    const members: string[] = [];
    let payload: Uint8Array | null = null;
    while (data[i] !== CLOSE_OBJECT) {
      if (data[i] !== QUOTE) return null;
      const keyEnd = skipString(data, i);
      const key = JSON.parse(decoder.decode(data.subarray(i, keyEnd))) as string;
      let j = skipSpace(data, keyEnd);
      if (data[j] !== COLON) return null;
      j = skipSpace(data, j + 1);
      const valueEnd = skipValue(data, j);
      if (key === 'payload') payload = data.slice(j, valueEnd);
      else members.push(decoder.decode(data.subarray(i, valueEnd)));
      i = skipSpace(data, valueEnd);
      if (data[i] === COMMA) i = skipSpace(data, i + 1);
      else if (data[i] !== CLOSE_OBJECT) return null;
    }
    if (skipSpace(data, i + 1) !== data.length) return null;
    const head = JSON.parse(`{${members.join(',')}}`) as unknown;
    return head !== null && typeof head === 'object' && !Array.isArray(head)
      ? { head: head as Record<string, unknown>, payload }
      : null;
  } catch {
    return null;
  }
}

/** Parses payload bytes kept by `splitRecord`. */
export function parsePayload(bytes: Uint8Array | null): unknown {
  return bytes === null ? undefined : JSON.parse(decoder.decode(bytes));
}
