/**
 * Outbound notification transports (`notification_transports`: named outbound transports; the spec shows no
 * field schema, ops/notifications.md records the choice). This release builds `type: webhook` (chosen events
 * POSTed as JSON to a URL, signed Standard Webhooks style when a secret is set), `type: chat` (each event
 * as a few lines of text, `{"text": ...}`, to a chat channel's incoming hook), `type: pager` (PagerDuty
 * Events API v2: alarms trigger and resolve one incident each), `type: email` (one message per event over
 * SMTP) and `type: sms` (a text message per event and recipient through Twilio's Messages API, or a service
 * speaking it). An entry of another type is stored with a `not_applied` warning; an entry of a built type that does
 * not parse is refused on a new write.
 */
import { z } from 'zod';
import { closestName } from '../did-you-mean.js';
import { cutForQuote } from '../text-grammars.js';
import { EventTypeCategories } from '../events/categories.js';
import { findingsOf, ReferenceKind, type Segment } from './problems.js';
import type { RuleContext } from './rule-context.js';
import { isSecretPath } from './secret-paths.js';
import { isRecord } from './walk.js';

/** Sent when a transport names no `events`: what an operator is paged for. */
export const DefaultTransportEvents: readonly string[] = Object.freeze([
  'human_asked',
  'alarm_raised',
  'alarm_cleared',
  'budget_exhausted',
  'llm_unavailable',
]);

/**
 * Whether `value` is a URL of one of `schemes` that a sender can use: it parses (`new URL`, which the
 * senders call) and its login, when it carries one, decodes. Shared with the check at apply, where a
 * `${VAR}` has been resolved: a URL that passed here must never fail the first attempt.
 */
export function usableUrl(value: string, schemes: RegExp): boolean {
  if (!schemes.test(value)) return false;
  try {
    const url = new URL(value);
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
    return url.hostname !== '';
  } catch {
    return false;
  }
}

export const HttpSchemes = /^https?:\/\/[^\s/]+/i;
export const SmtpSchemes = /^smtps?:\/\/[^\s/]+/i;

const urlOf = (schemes: RegExp, message: string) =>
  z
    .string()
    .min(1)
    // A reference is resolved at apply and checked there (actors/notify/transport.ts `unusable`).
    .refine((value) => value.includes('${') || usableUrl(value, schemes), { message });
const httpUrl = urlOf(HttpSchemes, 'an http(s) URL, or a ${VAR} reference to one');
const smtpUrl = urlOf(SmtpSchemes, 'an smtp:// or smtps:// URL, or a ${VAR} reference to one');

/** Where events are POSTed; may carry a credential (a chat hook's path), so it is a secret leaf. */
const postUrl = httpUrl.describe(
  'Where the events are POSTed (http or https); a ${VAR} reference keeps a token out of the document.',
);

/** What every built transport names besides where: which events, whose, and how long an attempt waits. */
const selection = {
  events: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(`Event types sent; default ${DefaultTransportEvents.join(', ')}.`),
  seats: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe('Only the events of these seats (handles); events of no seat (alarms) are then not sent.'),
  timeout_seconds: z
    .number()
    .positive()
    .max(60)
    .optional()
    .describe('How long one attempt waits for an answer (default 10).'),
};

export const WebhookTransport = z.strictObject({
  type: z.literal('webhook'),
  url: postUrl,
  ...selection,
  secret: z
    .string()
    .min(1)
    .optional()
    .describe('Signing secret (`whsec_` + base64, or any text): adds Standard Webhooks signature headers.'),
});

/** A chat channel's incoming hook (the `{"text": ...}` body such hooks take); unsigned, as they are. */
export const ChatTransport = z.strictObject({ type: z.literal('chat'), url: postUrl, ...selection });

/** PagerDuty's Events API v2 endpoint: the default of a `pager` transport. */
export const PagerEventsUrl = 'https://events.pagerduty.com/v2/enqueue';

/** An incident service speaking PagerDuty's Events API v2 (PagerDuty, and the services that accept its events). */
export const PagerTransport = z.strictObject({
  type: z.literal('pager'),
  routing_key: z
    .string()
    .min(1)
    .describe("The service's integration (routing) key; a ${VAR} reference keeps it out of the document."),
  url: httpUrl.optional().describe(`The Events API v2 endpoint (default ${PagerEventsUrl}).`),
  ...selection,
});

/** An address as a mail header takes it: `ops@example.com` or `Ops <ops@example.com>`. */
const mailbox = z
  .string()
  .max(320)
  .regex(/^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'an e-mail address (`ops@example.com` or `Ops <ops@example.com>`)'); // prettier-ignore

/** One message per event over SMTP. */
export const EmailTransport = z.strictObject({
  type: z.literal('email'),
  url: smtpUrl.describe(
    'The SMTP server: `smtps://host:465` (TLS from the start) or `smtp://host:587` (STARTTLS when offered).',
  ),
  username: z.string().min(1).optional().describe('SMTP login, when the server asks for one.'),
  password: z.string().min(1).optional().describe('SMTP password; a ${VAR} reference keeps it out of the document.'), // prettier-ignore
  from: mailbox.describe('The sender address.'),
  to: z.array(mailbox).min(1).max(50).describe('The recipients.'),
  ...selection,
});

/** Twilio's REST API: the default of an `sms` transport. */
export const SmsApiUrl = 'https://api.twilio.com';

/** A phone number as E.164 writes it: `+` and up to 15 digits. */
const e164 = /^\+[1-9][0-9]{6,14}$/;
const phone = z.string().regex(e164, 'a phone number in E.164 form (`+4915112345678`)');

/** One text message per event and recipient through Twilio's Messages API (or a service speaking it). */
export const SmsTransport = z.strictObject({
  type: z.literal('sms'),
  account_sid: z
    .string()
    .regex(
      /^(?:AC[0-9a-fA-F]{32}|\$\{[A-Za-z_][A-Za-z0-9_]*\})$/,
      'an account SID (`AC` and 32 hex digits), or a ${VAR} reference to one',
    ) // prettier-ignore
    .describe('The account the messages are sent from.'),
  auth_token: z
    .string()
    .min(1)
    .describe("The account's auth token; a ${VAR} reference keeps it out of the document."),
  from: z
    .string()
    .refine((value) => e164.test(value) || /^MG[0-9a-fA-F]{32}$/.test(value), {
      message:
        'a phone number in E.164 form (`+4915112345678`) or a messaging service SID (`MG` and 32 hex digits)',
    })
    .describe('The sending number (E.164), or a messaging service SID (`MG…`).'),
  to: z.array(phone).min(1).max(10).describe('The recipients (E.164), one message each.'),
  url: httpUrl.optional().describe(`The API's base URL (default ${SmsApiUrl}).`),
  ...selection,
});

export const OutboundTransport = z.discriminatedUnion('type', [
  WebhookTransport,
  ChatTransport,
  PagerTransport,
  EmailTransport,
  SmsTransport,
]);
export type OutboundTransport = z.infer<typeof OutboundTransport>;

/** Each built type's fields, for an unknown key's did-you-mean. */
const transportKeys: ReadonlyMap<unknown, ReadonlySet<string>> = new Map(
  OutboundTransport.options.map((o) => [o.shape.type.value, new Set(Object.keys(o.shape))]),
);
const isBuilt = (entry: unknown): entry is Record<string, unknown> =>
  isRecord(entry) && transportKeys.has(entry['type']);

/** The entries this release delivers, by name; entries that do not parse are left out. */
export function outboundTransports(value: unknown): Map<string, OutboundTransport> {
  const out = new Map<string, OutboundTransport>();
  if (!isRecord(value)) return out;
  for (const [name, entry] of Object.entries(value)) {
    const parsed = OutboundTransport.safeParse(entry);
    if (parsed.success) out.set(name, parsed.data);
  }
  return out;
}

/** Names of entries of a type this release does not build (a `not_applied` warning each). */
export function unbuiltTransports(value: unknown): string[] {
  if (!isRecord(value)) return [];
  return Object.entries(value)
    .filter(([, entry]) => !isBuilt(entry))
    .map(([name]) => name);
}

/** An empty credential is refused once, by the admission rule for credentials (admission.ts A5). */
const emptyCredential = (segments: Segment[], code: string, doc: unknown): boolean =>
  code === 'too_small' && isSecretPath(segments) && valueAt(doc, segments) === '';

function valueAt(doc: unknown, segments: Segment[]): unknown {
  let at = doc;
  for (const segment of segments) at = isRecord(at) || Array.isArray(at) ? (at as Record<string, unknown>)[segment] : undefined; // prettier-ignore
  return at;
}

/** Types a transport can be sent: the stored ones (a stream-only type never reaches a transport). */
const storedTypes = Object.keys(EventTypeCategories);

/**
 * An entry of a built type must parse: refused on a new write, a warning when a stored revision is reloaded.
 * Its `events` and `seats` name what exists: a type svc never records, or a handle of no seat, sends nothing
 * and is a `dangling_reference` warning.
 */
export function transportRules(ctx: RuleContext): void {
  const value = ctx.doc['notification_transports'];
  if (!isRecord(value)) return;
  for (const [name, entry] of Object.entries(value)) {
    if (!isBuilt(entry)) continue;
    const parsed = OutboundTransport.safeParse(entry);
    if (parsed.success) {
      selectionRules(ctx, name, parsed.data);
      continue;
    }
    // Mapped as the document's own shape issues are: the field's path and the spec's kind, in house words.
    const known = transportKeys.get(entry['type']) ?? 'any';
    for (const issue of parsed.error.issues) {
      for (const finding of findingsOf(issue, entry, () => known)) {
        const segments = ['notification_transports', name, ...finding.segments];
        if (emptyCredential(segments, issue.code, ctx.doc)) continue;
        ctx.admission(segments, finding.kind, finding.message);
      }
    }
  }
}

function selectionRules(ctx: RuleContext, name: string, t: OutboundTransport): void {
  t.events?.forEach((type, i) => {
    if (type in EventTypeCategories) return;
    const near = closestName(type, storedTypes);
    ctx.dangling({
      segments: ['notification_transports', name, 'events', i],
      ref: ReferenceKind.EventType,
      from: name,
      to: type,
      message: `names no event type svc records, so nothing is sent for it${near === null ? '' : `; did you mean \`${cutForQuote(near)}\`?`}`,
    });
  });
  const handles = ctx.walk.seats.map((seat) => seat.handle).filter((h): h is string => h !== null);
  t.seats?.forEach((handle, i) => {
    if (handles.includes(handle)) return;
    const byName = ctx.walk.seats.find((seat) => seat.name === handle)?.handle ?? null;
    const near = byName ?? closestName(handle, handles);
    ctx.dangling({
      segments: ['notification_transports', name, 'seats', i],
      ref: ReferenceKind.TransportSeat,
      from: name,
      to: handle,
      message: `names no seat handle, so no event of it is sent${near === null ? '' : `; did you mean \`${cutForQuote(near)}\`?`}`,
    });
  });
}
