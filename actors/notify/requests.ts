/**
 * What an HTTP transport sends for one event (pure): a webhook the event record as JSON, signed Standard
 * Webhooks style when it has a secret; a chat hook the event as text; a pager an Events API v2 event, where
 * an alarm's raise and clear trigger and resolve one incident. ops/notifications.md describes the formats.
 */
import { createHmac } from 'node:crypto';
import { Payloads, type EventRecord } from '../../schema/index.js';
import { clip } from '../text.js';
import type { ResolvedTransport } from './transport.js';

const userAgent = 'svc-notifications';

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
  secret: string | null,
  event: EventRecord,
  body: string,
  nowMs: number,
): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': event.id,
    'webhook-timestamp': timestamp,
    ...(secret !== null ? { 'webhook-signature': webhookSignature(secret, event.id, timestamp, body) } : {}),
  };
}

/** The longest chat text sent (hooks cap a message; Slack's is 40,000 characters, others far less). */
export const CHAT_TEXT_MAX = 3_000;

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** Whom an event is about: its seat, else whoever recorded it. */
export const whoOf = (event: EventRecord): string => event.agent_id ?? event.actor;

/**
 * What an event says in a sentence: a `human_asked` its question, any other its summary less what the
 * headline already names (a seat's summaries open with `<seat>: <type>`); empty when nothing is left.
 */
export function eventDetail(event: EventRecord): string {
  if (event.type !== 'human_asked') return withoutHeadline(event.summary.trim(), event);
  const p = event.payload;
  const urgency = text(p['urgency']);
  return `${whoOf(event)} asks ${text(p['to']) ?? 'a person'}${urgency && urgency !== 'normal' ? ` (${urgency})` : ''}: ${text(p['question']) ?? ''}`; // prettier-ignore
}

function withoutHeadline(summary: string, event: EventRecord): string {
  const who = `${whoOf(event)}: `;
  const rest = summary.startsWith(who) ? summary.slice(who.length).trimStart() : summary;
  if (rest === event.type) return '';
  return rest.startsWith(`${event.type} `) ? rest.slice(event.type.length + 1).trimStart() : rest;
}

/** An event's first line: its type and whom it is about, `✗` first when it records a failure. */
export const eventHeadline = (event: EventRecord): string =>
  `${event.failed ? '✗ ' : ''}${event.type} · ${whoOf(event)}`;

/** The headline and what the event says on one line (a pager's summary, a mail's subject). */
export const headlineAndDetail = (headline: string, detail: string): string =>
  detail === '' ? headline : `${headline}: ${detail}`;

/** Slack's control characters and the entities it reads them as (Mattermost's Markdown reads them too). */
const CHAT_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * Text for a channel that mentions no one: `&`, `<`, `>` as Slack's entities, so `<!channel>`, `<!here>`,
 * `<@U…>` (and Mattermost's reading of them) show as typed; and a zero-width space after an `@` that starts a
 * word, so Mattermost's and Rocket.Chat's `@channel`, `@all`, `@here`, `@name` are not mentions either (an
 * address's `@`, after a letter or digit, is left whole).
 */
const chatEscape = (s: string): string =>
  s.replace(/[&<>]/g, (c) => CHAT_ENTITIES[c]!).replace(/(?<![\p{L}\p{N}])@(?=[\p{L}\p{N}_])/gu, '@\u200B');

/** `s` escaped and cut to `max` characters, cut before escaping so no entity or guard is split. */
function escapedWithin(s: string, max: number): string {
  const whole = chatEscape(s);
  if (whole.length <= max) return whole;
  // The longest prefix whose escaped text and ellipsis fit (an escaped prefix only grows with the prefix).
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (chatEscape(s.slice(0, mid)).length <= max - 1) lo = mid;
    else hi = mid - 1;
  }
  return `${chatEscape(s.slice(0, lo))}…`;
}

/**
 * What a person reads of an event in a channel: what happened and to whom, then what it says, then its id.
 * All of it is escaped (`chatEscape`): a question or summary is what an agent wrote, and the message is a
 * record for the channel, not a page — it mentions no one (svc's own lines carry no mention either).
 */
export function chatText(event: EventRecord): string {
  const headline = chatEscape(eventHeadline(event));
  const tail = chatEscape(`event ${event.id} at ${event.timestamp}`);
  // The id line is what leads back to the record: a long summary is cut, never the id.
  const room = CHAT_TEXT_MAX - headline.length - tail.length - 2;
  const detail = escapedWithin(eventDetail(event), Math.max(1, room));
  return clip([headline, detail, tail].filter((line) => line !== '').join('\n'), CHAT_TEXT_MAX);
}

/** PagerDuty's cap on an event's summary. */
export const PAGER_SUMMARY_MAX = 1_024;

type PagerSeverity = 'critical' | 'error' | 'warning' | 'info';

/** What a raise and its clear share: the condition, its node, its severity. */
const AlarmNamed = Payloads.AlarmRaised.pick({ alarm: true, node: true, severity: true });

/** The alarm an `alarm_raised`/`alarm_cleared` event names, when its payload is one. */
function alarmOf(event: EventRecord): ReturnType<typeof AlarmNamed.parse> | null {
  if (event.type !== 'alarm_raised' && event.type !== 'alarm_cleared') return null;
  const parsed = AlarmNamed.safeParse(event.payload);
  return parsed.success ? parsed.data : null;
}

function severityOf(event: EventRecord): PagerSeverity {
  if (event.type === 'human_asked') return text(event.payload['urgency']) === 'high' ? 'error' : 'warning';
  if (event.failed || event.type === 'budget_exhausted' || event.type === 'llm_unavailable') return 'error';
  return 'info';
}

/**
 * One Events API v2 event. An alarm is one incident per node and condition: raised triggers it, cleared
 * resolves it (the same `dedup_key`). Any other event is an incident of its own, keyed by its id, so a
 * repeated attempt adds nothing at the pager.
 */
export function pagerEvent(routingKey: string, event: EventRecord): Record<string, unknown> {
  const alarm = alarmOf(event);
  const dedupKey = alarm ? `svc/alarm/${alarm.node}/${alarm.alarm}` : `svc/event/${event.id}`;
  if (alarm && event.type === 'alarm_cleared')
    return { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey };
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    client: 'svc',
    payload: {
      summary: clip(headlineAndDetail(eventHeadline(event), eventDetail(event)), PAGER_SUMMARY_MAX),
      source: alarm?.node ?? event.source,
      severity: alarm?.severity ?? severityOf(event),
      timestamp: event.timestamp,
      ...(event.agent_id !== undefined ? { component: event.agent_id } : {}),
      group: event.category,
      class: event.type,
      custom_details: { event_id: event.id, trace_id: event.trace_id, ...event.payload },
    },
  };
}

type HttpTransport = Exclude<ResolvedTransport, { type: 'email' | 'sms' }>;

/** The request of one attempt of an HTTP transport. */
export function requestOf(
  t: HttpTransport,
  event: EventRecord,
  nowMs: number,
): { headers: Record<string, string>; body: string } {
  const json = { 'content-type': 'application/json', 'user-agent': userAgent };
  switch (t.type) {
    case 'chat':
      return { headers: json, body: JSON.stringify({ text: chatText(event) }) };
    case 'pager':
      return { headers: json, body: JSON.stringify(pagerEvent(t.routingKey, event)) };
    case 'webhook': {
      const body = JSON.stringify(event);
      return { headers: requestHeaders(t.secret, event, body, nowMs), body };
    }
  }
}
