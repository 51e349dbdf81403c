/**
 * Decoding stored events for the index. Replay must not parse payloads (an `agent_phase_completed` carries
 * whole prompts and responses), so the bytes before the top-level `,"payload":` are parsed on their own: a
 * JSON string never holds an unescaped `"`, so the first such key is the record's own whenever the payload
 * is serialized last (as `publishEvent` does). Anything else falls back to parsing the whole record. Both
 * paths are checked with the zod schema.
 */
import { EventRecord, EventRow } from '../schema/index.js';

const marker = Buffer.from(',"payload":');

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

/** The record without its payload, or null when the bytes are not an event record. */
export function decodeRow(data: Uint8Array): EventRow | null {
  const bytes = bufferOf(data);
  const at = bytes.indexOf(marker);
  if (at > 0) {
    const head = EventRow.safeParse(parse(`${bytes.toString('utf8', 0, at)}}`));
    if (head.success) return head.data;
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
