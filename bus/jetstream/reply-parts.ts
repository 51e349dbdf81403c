/**
 * Replies larger than one NATS message (`max_payload`, 1 MiB on a default server). A requester that can
 * join parts says so with `Svc-Reply-Parts` (its own server's max payload); a replier then sends a reply
 * that does not fit as several messages to the request's reply subject, each marked `Svc-Part: i/n`. A reply
 * that fits, and any reply of an earlier release, is one unmarked message, read as it is. A requester that
 * did not ask for parts gets an error naming the limit instead of a reply the server would refuse.
 */
import { headers as natsHeaders, type Msg, type MsgHdrs } from '@nats-io/transport-node';
import type { CoreMessage } from '../bus.js';
import { IncompleteReplyError } from '../errors.js';
import { coreFromMsg } from './codec.js';

export const partsHeader = 'Svc-Reply-Parts';
const partHeader = 'Svc-Part';
/** When the server's INFO is not at hand: the default `max_payload`. */
export const defaultMaxPayload = 1024 * 1024;
/** Parts stay well under the limit: headers ride in the same message, and a route may add its own. */
const partShare = 0.5;
/** A marker claiming more parts than this is not a reply of this protocol. */
const maxParts = 100_000;
const partPattern = /^(\d+)\/(\d+)$/;

/** The largest payload the connected server takes (its INFO), or the default when not known. */
export function maxPayloadOf(info: { max_payload?: number } | undefined): number {
  const limit = info?.max_payload;
  return typeof limit === 'number' && limit > 0 ? limit : defaultMaxPayload;
}

/**
 * The messages that carry `data` to the requester of `msg`: one unmarked message when it fits, parts when
 * the requester joins them, else null (the reply cannot be sent in one message, nor in parts).
 */
export function replyMessages(
  msg: Msg,
  data: Uint8Array,
  maxPayload: number,
): { data: Uint8Array; headers?: MsgHdrs }[] | null {
  if (data.length <= maxPayload) return [{ data }];
  const asked = Number(msg.headers?.get(partsHeader) ?? '');
  if (!Number.isInteger(asked) || asked <= 0) return null;
  const size = Math.max(1024, Math.floor(Math.min(maxPayload, asked) * partShare));
  const count = Math.ceil(data.length / size);
  const out: { data: Uint8Array; headers: MsgHdrs }[] = [];
  for (let i = 0; i < count; i += 1) {
    const headers = natsHeaders();
    headers.set(partHeader, `${i + 1}/${count}`);
    out.push({ data: data.subarray(i * size, (i + 1) * size), headers });
  }
  return out;
}

/**
 * Joins the messages arriving on one request's reply subject. `add` returns the whole reply once it is
 * complete (an unmarked message is complete by itself), null while parts are still missing, and throws
 * IncompleteReplyError when the parts disagree.
 */
export class PartJoiner {
  private readonly parts: Uint8Array[] = [];
  private count = 0;
  private received = 0;
  private bytes = 0;

  constructor(private readonly subject: string) {}

  add(msg: Msg): CoreMessage | null {
    const marker = msg.headers?.get(partHeader);
    if (!marker) return coreFromMsg(msg);
    const match = partPattern.exec(marker);
    const index = Number(match?.[1]);
    const count = Number(match?.[2]);
    if (!match || count < 1 || count > maxParts || index < 1 || index > count)
      throw new IncompleteReplyError(`reply on ${this.subject}: unreadable part marker "${marker}"`);
    if (this.count !== 0 && count !== this.count)
      throw new IncompleteReplyError(`reply on ${this.subject}: parts disagree on their count`);
    if (this.parts[index - 1] !== undefined)
      throw new IncompleteReplyError(`reply on ${this.subject}: part ${index} of ${count} arrived twice`);
    this.count = count;
    this.parts[index - 1] = msg.data;
    this.received += 1;
    this.bytes += msg.data.length;
    if (this.received < count) return null;
    const whole = new Uint8Array(this.bytes);
    let at = 0;
    for (const part of this.parts) {
      whole.set(part, at);
      at += part.length;
    }
    const { [partHeader]: _marker, ...headers } = coreFromMsg(msg).headers;
    return { subject: msg.subject, headers, data: whole };
  }

  /** What is missing, for the error a request that ran out of time throws; null when nothing came. */
  missing(timeoutMs: number): IncompleteReplyError | null {
    if (this.received === 0) return null;
    return new IncompleteReplyError(
      `reply on ${this.subject} incomplete: ${this.received} of ${this.count} parts arrived within ${timeoutMs} ms`,
    );
  }
}
