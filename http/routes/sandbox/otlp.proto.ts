/**
 * Just enough of the protobuf wire format to count the items of an OTLP export and tell a well-formed one
 * from garbage — the three requests share their shape: resource_{spans,metrics,logs} = 1 →
 * scope_{spans,metrics,logs} = 2 → {spans,metrics,log_records} = 2 — and to write a `google.rpc.Status`.
 * The export itself is forwarded as received; nothing is re-encoded.
 */

/** Length-delimited fields `field` of one message; throws on a malformed message. */
function fieldsOf(buf: Uint8Array, field: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let i = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (i >= buf.length) throw new Error('truncated varint');
      const byte = buf[i++]!;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
      if (shift > 63) throw new Error('varint too long');
    }
  };
  while (i < buf.length) {
    const key = varint();
    const wire = key % 8;
    const number = Math.floor(key / 8);
    if (number === 0) throw new Error('field number 0');
    if (wire === 0) varint();
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else if (wire === 2) {
      const length = varint();
      if (i + length > buf.length) throw new Error('truncated field');
      if (number === field) out.push(buf.subarray(i, i + length));
      i += length;
    } else throw new Error(`unsupported wire type ${wire}`);
    if (i > buf.length) throw new Error('truncated field');
  }
  return out;
}

/** Spans, metrics or log records in a protobuf export; throws when the bytes are not such a message. */
export function countProtoItems(body: Uint8Array): number {
  let items = 0;
  for (const resource of fieldsOf(body, 1))
    for (const scope of fieldsOf(resource, 2)) items += fieldsOf(scope, 2).length;
  return items;
}

const varintBytes = (n: number): number[] => {
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 0x80)) out.push((n % 0x80) | 0x80);
  out.push(n);
  return out;
};

/** A `google.rpc.Status` with no details: code = 1 (varint), message = 2 (string). */
export function encodeStatus(code: number, message: string): Buffer {
  const text = Buffer.from(message, 'utf8');
  const head = [0x08, ...varintBytes(code), 0x12, ...varintBytes(text.length)];
  return Buffer.concat([Buffer.from(head), text]);
}
