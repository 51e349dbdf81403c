/**
 * Inbound webhooks: the vendors, the raw delivery the gateway appends to the audit stream (headers
 * of the stored message; the data is the body exactly as received) and the parsed notification the
 * integration actor publishes on `svc.notifications.inbound`.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isRecord } from './json.js';

export const Vendor = {
  TrackerA: 'tracker-a',
  Chat: 'chat',
  CodehostA: 'codehost-a',
  CodehostB: 'codehost-b',
  TrackerB: 'tracker-b',
  Wiki: 'wiki',
  Monitor: 'monitor',
  Relay: 'relay',
} as const;
export type Vendor = (typeof Vendor)[keyof typeof Vendor];
const vendors = Object.values(Vendor) as [Vendor, ...Vendor[]];
export const VendorName = z.enum(vendors);

/** The pipeline a delivery joins: relay events are mapped onto tracker-a and wiki. */
export type Pipeline = Exclude<Vendor, 'relay'>;

/** Header names of a stored raw delivery (bus message headers). */
export const RawHeader = {
  Vendor: 'svc-vendor',
  Pipeline: 'svc-pipeline',
  DeliveryId: 'svc-delivery-id',
  ReceivedAt: 'svc-received-at',
  Event: 'svc-event',
  Seat: 'svc-seat',
  Scheme: 'svc-scheme',
  /** Names of the headers that carried the credential; never their values. */
  SignatureHeaders: 'svc-signature-headers',
  /** JSON object of the vendor's headers worth keeping (credential headers removed). */
  VendorHeaders: 'svc-vendor-headers',
  ContentType: 'svc-content-type',
} as const;

/** The vendors that may send a form, their JSON in its `payload` field: chat (interactions) and codehost-a. */
const formVendors: ReadonlySet<string> = new Set([Vendor.Chat, Vendor.CodehostA]);

/**
 * A delivery sent as a form: only chat and codehost-a send forms, so every other body is JSON whatever its
 * label. Media types are case-insensitive (RFC 9110 8.3.1).
 */
export function isForm(pipeline: string, contentType: string): boolean {
  const media = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
  return formVendors.has(pipeline) && media === 'application/x-www-form-urlencoded';
}

/**
 * The JSON of a delivery body as its pipeline reads it, or undefined when it has none: a form's `payload`
 * field (a chat form without one, a slash command, reads as its fields), else the body itself. The receiver
 * and routing both read a delivery through this, so they read it the same way.
 */
export function deliveryJson(pipeline: string, contentType: string, text: string): unknown {
  try {
    if (isForm(pipeline, contentType)) {
      const fields = new URLSearchParams(text);
      const payload = fields.get('payload');
      if (payload !== null) return JSON.parse(payload) as unknown;
      return pipeline === Vendor.Chat ? Object.fromEntries(fields) : undefined;
    }
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The page (or blog post) a wiki payload is about: the page itself, a blog post, a comment's page, or the
 * relay's `content`, whose page is its `container` when the content is a comment. Both the dedup key
 * (receiver) and routing (page watchers) read it here, so a comment keys and routes on its page.
 */
export function wikiPage(json: unknown): unknown {
  const field = (v: unknown, key: string): unknown => (isRecord(v) ? v[key] : undefined);
  const comment = field(json, 'comment');
  const content = field(json, 'content');
  return (
    field(json, 'page') ??
    field(json, 'blog') ??
    field(json, 'blogpost') ??
    field(comment, 'container') ??
    field(comment, 'parent') ??
    (field(content, 'type') === 'comment' ? field(content, 'container') : undefined) ??
    content
  );
}

/** What the audit stream records about one accepted delivery (the body is the message data). */
export const RawDeliveryMeta = z.object({
  vendor: VendorName,
  pipeline: VendorName.exclude(['relay']),
  delivery_id: z.string().min(1),
  received_at: z.string(),
  event: z.string(),
  /** Per-seat routes: the seat the delivery is addressed to; '' when none. */
  seat: z.string(),
  scheme: z.string(),
  signature_headers: z.array(z.string()),
  vendor_headers: z.record(z.string(), z.string()),
  content_type: z.string(),
});
export type RawDeliveryMeta = z.infer<typeof RawDeliveryMeta>;

const vendorNames: ReadonlySet<string> = new Set(vendors);

const stringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** A plain object of strings whose keys copy as they are (no `__proto__`, which a copy would not keep). */
const stringRecord = (v: unknown): v is Record<string, string> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  for (const key in v) {
    if (key === '__proto__' || typeof (v as Record<string, unknown>)[key] !== 'string') return false;
  }
  return true;
};

/** Reads the metadata back from a stored message's headers; throws a ZodError when it is not one. */
export function rawDeliveryMeta(headers: Readonly<Record<string, string>>): RawDeliveryMeta {
  const json = (value: string | undefined, fallback: unknown): unknown => {
    if (value === undefined) return fallback;
    try {
      return JSON.parse(value);
    } catch {
      return fallback;
    }
  };
  const meta = {
    vendor: headers[RawHeader.Vendor],
    pipeline: headers[RawHeader.Pipeline],
    delivery_id: headers[RawHeader.DeliveryId],
    received_at: headers[RawHeader.ReceivedAt],
    event: headers[RawHeader.Event] ?? '',
    seat: headers[RawHeader.Seat] ?? '',
    scheme: headers[RawHeader.Scheme] ?? '',
    signature_headers: json(headers[RawHeader.SignatureHeaders], []),
    vendor_headers: json(headers[RawHeader.VendorHeaders], {}),
    content_type: headers[RawHeader.ContentType] ?? '',
  };
  // Every routed delivery is read here: what the schema accepts is checked by hand first (the same rules,
  // giving the same object), and zod reads only the rest, to refuse it with its own error.
  const { vendor, pipeline, delivery_id, signature_headers, vendor_headers } = meta;
  if (
    typeof vendor === 'string' &&
    vendorNames.has(vendor) &&
    typeof pipeline === 'string' &&
    pipeline !== Vendor.Relay &&
    vendorNames.has(pipeline) &&
    typeof delivery_id === 'string' &&
    delivery_id !== '' &&
    [meta.received_at, meta.event, meta.seat, meta.scheme, meta.content_type].every(
      (v) => typeof v === 'string',
    ) &&
    stringArray(signature_headers) &&
    stringRecord(vendor_headers)
  )
    return meta as RawDeliveryMeta;
  return RawDeliveryMeta.parse(meta);
}

/** A person or bot as a vendor names them; every field optional because vendors differ. */
export const VendorActor = z.object({
  id: z.string().optional(),
  login: z.string().optional(),
  name: z.string().optional(),
  email: z.string().optional(),
  bot: z.boolean().optional(),
});
export type VendorActor = z.infer<typeof VendorActor>;

/** A parsed inbound delivery on `svc.notifications.inbound`. */
export const InboundNotification = z.object({
  /** `<pipeline>:<dedup key>`: a redelivery of the same raw delivery gives the same id. */
  id: z.string().min(1),
  vendor: VendorName,
  pipeline: VendorName.exclude(['relay']),
  event: z.string(),
  delivery_id: z.string(),
  received_at: z.string(),
  /** The seat a per-seat route addresses; null otherwise. */
  seat: z.string().nullable(),
  /** Who caused the event. */
  trigger: VendorActor.nullable(),
  summary: z.string(),
  /** What it is about: a page, an issue, a merge request, a channel message, an alert. */
  subject: z.object({
    kind: z.string(),
    id: z.string().nullable(),
    key: z.string().nullable(),
    title: z.string().nullable(),
    space: z.string().nullable(),
    url: z.string().nullable(),
  }),
  /** `@mentions` found in the text (vendor ids, logins or handles as written). */
  mentions: z.array(z.string()),
  /** People the event names (assignees, reviewers, owners): resolved by handle or email. */
  named: z.array(VendorActor),
  /** Where the raw delivery is stored (audit stream and sequence). */
  raw: z.object({ stream: z.string(), seq: z.number().int() }),
  /** The parsed body when small (under 256 KiB); otherwise null and `raw` points at it. */
  payload: z.unknown(),
});
export type InboundNotification = z.infer<typeof InboundNotification>;

/**
 * The id of one accepted delivery across the pipeline: the raw message's dedup id, the notification's id
 * and the prefix of every inbox message it causes. Long keys are hashed to stay a valid message id.
 */
export function deliveryKey(pipeline: string, seat: string | null, deliveryId: string): string {
  const id = `${pipeline}:${seat ? `${seat}:` : ''}${deliveryId}`;
  return id.length <= 200 ? id : `${pipeline}:sha256:${createHash('sha256').update(id).digest('hex')}`;
}

/**
 * The trace of one delivery (32 hex digits, from its delivery key): its `webhook_received` event, the
 * inbox messages it causes and so the turns they start share it, and `/events/trace/{id}` links them.
 */
export function deliveryTrace(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}
