/**
 * What a transport sends and when (pure): which events it takes, the request it makes for one (a webhook:
 * the event as JSON, signed when it has a secret; a chat hook: the event as text), and how long a failed
 * attempt waits before the next. ops/notifications.md describes the wire format.
 */
import { createHmac } from 'node:crypto';
import { DefaultTransportEvents, type EventRecord, type OutboundTransport } from '../../schema/index.js';
import { clip } from '../text.js';

/** Attempts per event before it is given up (`notification_failed`): about 8 minutes of retrying. */
export const MAX_ATTEMPTS = 10;
/** An event older than this when its turn comes is not sent (a transport re-added after a long absence). */
export const STALE_AFTER_MS = 3_600_000;
export const DEFAULT_TIMEOUT_MS = 10_000;

/** A transport with its `${VAR}` references resolved, as the host runs it. */
export interface ResolvedTransport {
  readonly name: string;
  readonly type: OutboundTransport['type'];
  readonly url: string;
  readonly secret: string | null;
  readonly events: ReadonlySet<string>;
  readonly seats: ReadonlySet<string> | null;
  readonly timeoutMs: number;
}

export function resolveTransport(
  name: string,
  t: OutboundTransport,
  resolve: (text: string) => string,
): ResolvedTransport {
  return {
    name,
    type: t.type,
    url: resolve(t.url),
    secret: t.type !== 'webhook' || t.secret === undefined ? null : resolve(t.secret) || null,
    events: new Set(t.events ?? DefaultTransportEvents),
    seats: t.seats === undefined ? null : new Set(t.seats),
    timeoutMs: (t.timeout_seconds ?? DEFAULT_TIMEOUT_MS / 1000) * 1000,
  };
}

/** Whether the transport sends this event: its type is chosen and, when seats are named, it is one of theirs. */
export function takes(t: ResolvedTransport, event: EventRecord): boolean {
  if (!t.events.has(event.type)) return false;
  return t.seats === null || (event.agent_id !== undefined && t.seats.has(event.agent_id));
}

/** The signing key of a secret: the base64 after `whsec_`, else the secret's own bytes. */
function signingKey(secret: string): Buffer {
  const b64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : null;
  if (b64 !== null && /^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return Buffer.from(b64, 'base64');
  return Buffer.from(secret, 'utf8');
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`. */
export function webhookSignature(secret: string, id: string, timestamp: string, body: string): string {
  const mac = createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The headers of one POST: the event id as `webhook-id` (a receiver's dedup key), signed when a secret is set. */
export function requestHeaders(
  t: ResolvedTransport,
  event: EventRecord,
  body: string,
  nowMs: number,
): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    'content-type': 'application/json',
    'user-agent': 'svc-notifications',
    'webhook-id': event.id,
    'webhook-timestamp': timestamp,
    ...(t.secret !== null
      ? { 'webhook-signature': webhookSignature(t.secret, event.id, timestamp, body) }
      : {}),
  };
}

/** The longest chat text sent (hooks cap a message; Slack's is 40,000 characters, others far less). */
export const CHAT_TEXT_MAX = 3_000;

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** What a person reads of an event in a channel: what happened and to whom, then what it says, then its id. */
export function chatText(event: EventRecord): string {
  const p = event.payload;
  const who = event.agent_id ?? event.actor;
  let detail = event.summary;
  if (event.type === 'human_asked') {
    const urgency = text(p['urgency']);
    detail = `${who} asks ${text(p['to']) ?? 'a person'}${urgency && urgency !== 'normal' ? ` (${urgency})` : ''}: ${text(p['question']) ?? ''}`; // prettier-ignore
  }
  const head = `${event.failed ? '✗ ' : ''}${event.type} · ${who}`;
  return clip(`${head}\n${detail}\nevent ${event.id} at ${event.timestamp}`, CHAT_TEXT_MAX);
}

/** The request of one attempt: a webhook's JSON record with its headers, or a chat hook's `{"text": ...}`. */
export function requestOf(
  t: ResolvedTransport,
  event: EventRecord,
  nowMs: number,
): { headers: Record<string, string>; body: string } {
  if (t.type === 'chat')
    return {
      headers: { 'content-type': 'application/json', 'user-agent': 'svc-notifications' },
      body: JSON.stringify({ text: chatText(event) }),
    };
  const body = JSON.stringify(event);
  return { headers: requestHeaders(t, event, body, nowMs), body };
}

/** What an answer means: sent, worth another attempt (5xx, 408, 429, no answer), or refused for good. */
export function verdictOf(status: number | null): 'sent' | 'retry' | 'refused' {
  if (status !== null && status >= 200 && status < 300) return 'sent';
  if (status === null || status >= 500 || status === 408 || status === 429) return 'retry';
  return 'refused';
}

/** The wait before attempt `next` (2, 3, ...): 1 s, doubling, at most a minute. */
export function backoffMs(next: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, next - 2));
}
