/** Conversions between NATS messages and the bus's plain records. */
import type { JsMsg, StoredMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, type Msg, type MsgHdrs } from '@nats-io/transport-node';
import type { CoreMessage, DeliveredMessage, Headers, StoredMessage } from '../bus.js';

const emptyHeaders: Headers = Object.freeze({});

/** `Nats-*` headers belong to the server and client (ids, expectations, direct-get metadata). */
function reserved(name: string): boolean {
  return name.toLowerCase().startsWith('nats-');
}

/** A frozen record of the application's headers (first value of each, `Nats-*` left out). */
export function toHeaders(hdrs: MsgHdrs | undefined): Headers {
  if (!hdrs) return emptyHeaders;
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  let any = false;
  for (const name of hdrs.keys()) {
    if (reserved(name)) continue;
    out[name] = hdrs.get(name);
    any = true;
  }
  return any ? Object.freeze(out) : emptyHeaders;
}

/** NATS headers from a bus header record (undefined when there is nothing to send). */
export function fromHeaders(headers: Headers | undefined): MsgHdrs | undefined {
  if (!headers) return undefined;
  const names = Object.keys(headers);
  if (names.length === 0) return undefined;
  const hdrs = natsHeaders();
  for (const name of names) hdrs.set(name, headers[name] as string);
  return hdrs;
}

export function storedFromGet(stream: string, msg: StoredMsg): StoredMessage {
  return {
    stream,
    seq: msg.seq,
    subject: msg.subject,
    time: msg.time,
    headers: toHeaders(msg.header),
    data: msg.data,
  };
}

export function storedFromJs(stream: string, msg: JsMsg): StoredMessage {
  return {
    stream,
    seq: msg.seq,
    subject: msg.subject,
    time: msg.time,
    headers: toHeaders(msg.headers),
    data: msg.data,
  };
}

export function deliveredFromJs(stream: string, msg: JsMsg): DeliveredMessage {
  return { ...storedFromJs(stream, msg), deliveryCount: msg.info.deliveryCount };
}

export function coreFromMsg(msg: Msg): CoreMessage {
  return { subject: msg.subject, headers: toHeaders(msg.headers), data: msg.data };
}

/** Milliseconds to the nanoseconds JetStream configuration speaks. */
export function nanos(ms: number): number {
  return Math.round(ms) * 1_000_000;
}
