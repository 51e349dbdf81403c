/**
 * Decoding stored events for the index. Replay must not parse payloads (an `agent_phase_completed` carries
 * whole prompts and responses), so the bytes before the top-level `,"payload":` are parsed on their own: a
 * JSON string never holds an unescaped `"`, so the first such key is the record's own whenever the payload
 * is serialized last (as `publishEvent` does). A seat the head lacks but whose key appears after the payload
 * (a record built with another key order) sends the record down the slow path, which parses everything: the
 * seat is indexed. A `topic` there is only a row's field: it is read from the whole record when the row is
 * made, and a whole record that does not parse leaves the row without it. The head is checked by `checkRow`
 * (the zod schema's rules, written out for speed), the whole record by the zod schema.
 */
import { EventRecord, type EventRow } from '../../schema/index.js';
import { checkRow } from './events.check.js';

const marker = Buffer.from(',"payload":');
const agentKey = Buffer.from('"agent_id"');
const topicKey = Buffer.from('"topic"');

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

/**
 * A `topic` written after the payload (at or after byte `from`), read from the whole record; undefined when
 * there is none or the whole record is not an event record.
 */
export function topicAfterPayload(data: Uint8Array, from: number): string | undefined {
  const bytes = bufferOf(data);
  if (bytes.indexOf(topicKey, from) < 0) return undefined;
  return decodeRecord(bytes)?.topic;
}

/** The record without its payload, or null when the bytes are not an event record. */
export function decodeRow(data: Uint8Array): EventRow | null {
  const bytes = bufferOf(data);
  const at = bytes.indexOf(marker);
  if (at > 0) {
    const head = checkRow(parse(`${bytes.toString('utf8', 0, at)}}`));
    if (head !== null && (head.agent_id !== undefined || bytes.indexOf(agentKey, at) < 0)) {
      if (head.topic === undefined) {
        const topic = topicAfterPayload(bytes, at);
        if (topic !== undefined) head.topic = topic;
      }
      return head;
    }
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
