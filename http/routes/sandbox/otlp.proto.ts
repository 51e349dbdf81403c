/**
 * Just enough of the protobuf wire format to count the spans of an OTLP `ExportTraceServiceRequest`
 * (resource_spans = 1 → scope_spans = 2 → spans = 2) and to tell a well-formed message from garbage.
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

/** Spans in a protobuf trace export; throws when the bytes are not such a message. */
export function countProtoSpans(body: Uint8Array): number {
  let spans = 0;
  for (const resource of fieldsOf(body, 1))
    for (const scope of fieldsOf(resource, 2)) spans += fieldsOf(scope, 2).length;
  return spans;
}

/** Checks a metrics or logs export is a well-formed message (their contents are only forwarded). */
export function checkProto(body: Uint8Array): void {
  for (const resource of fieldsOf(body, 1)) fieldsOf(resource, 2);
}
