/**
 * Decoding stored events for the index. Replay must not parse payloads (an `agent_phase_completed` carries
 * whole prompts and responses), so the bytes before the top-level `,"payload":` are parsed on their own: a
 * JSON string never holds an unescaped `"`, so the first such key is the record's own whenever the payload
 * is serialized last (as `publishEvent` does). An optional field the head lacks but whose key appears after
 * the payload (a record built with another key order) sends the record down the slow path, which parses
 * everything. The head is checked by `checkRow` (the zod schema's rules, written out for speed), the whole
 * record by the zod schema.
 */
import { EventRecord, type EventRow } from '../schema/index.js';
import { checkRow } from './events.check.js';

const marker = Buffer.from(',"payload":');
/** Optional top-level fields that may follow the payload in a record serialized in another order. */
const optionalKeys = [
  ['agent_id', Buffer.from('"agent_id"')],
  ['topic', Buffer.from('"topic"')],
] as const;

function bufferOf(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A head cut before `,"payload":` (its bytes, without the closing brace) read as a row, or null. */
export function decodeHead(head: Uint8Array): EventRow | null {
  return checkRow(parse(`${bufferOf(head).toString('utf8')}}`));
}

/** The record without its payload, or null when the bytes are not an event record. */
export function decodeRow(data: Uint8Array): EventRow | null {
  const bytes = bufferOf(data);
  const at = bytes.indexOf(marker);
  if (at > 0) {
    const head = checkRow(parse(`${bytes.toString('utf8', 0, at)}}`));
    if (
      head !== null &&
      optionalKeys.every(([key, quoted]) => head[key] !== undefined || bytes.indexOf(quoted, at) < 0)
    )
      return head;
  }
  const whole = EventRecord.safeParse(parse(bytes.toString('utf8')));
  if (!whole.success) return null;
  const { payload: _payload, ...row } = whole.data;
  return row;
}

/** The whole record (with payload), or null. */
export function decodeRecord(data: Uint8Array): EventRecord | null {
  const parsed = EventRecord.safeParse(parse(bufferOf(data).toString('utf8')));
  return parsed.success ? parsed.data : null;
}
