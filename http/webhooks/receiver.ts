/**
 * The pipeline every receiver shares once its vendor module has spoken:
 *   1. fail closed: no secret configured -> 503 with Retry-After (nothing unsigned is kept); this and a
 *      missing credential header are answered before the body is read (gate.ts)
 *   2. refuse: bad or missing signature -> 401 `invalid_token`; a bad body -> 400 (never quoted)
 *   3. accept: append the raw delivery to the audit stream with the dedup key as message id — one
 *      durable append that also decides "seen before" across nodes and restarts — then answer 2xx.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { Subjects, type Bus } from '../../bus/index.js';
import { deliveryKey, RawHeader, type Pipeline, type Vendor } from '../../schema/index.js';
import { ApiError, codelessReply, wholeBodyProblem } from '../api-error.js';
import type { ApiReply, ApiRequest } from '../types.js';
import type { Arrivals } from './arrivals.js';
import type { RoutingBacklog } from './backlog.js';
import type { RelayKeySet } from './relay-keys.js';
import type { WebhookSettings } from './settings.js';
import type { Refusal } from './verify.js';

export interface ReceiverDeps {
  readonly bus: Bus;
  /** Settings of the active revision (resolved secrets); read on every delivery. */
  settings(): WebhookSettings;
  /** False before the first revision is active. */
  configured(): boolean;
  readonly arrivals: Arrivals;
  /** Holds answers while routing is far behind (backlog.ts); absent, answers never wait. */
  readonly backlog?: RoutingBacklog;
  /** The relay key set for a location (cached by the caller). */
  relayKeys(url: string): RelayKeySet;
  now?: () => number;
  /**
   * A verified `installation` delivery on a seat's own app hook: records the installation id on the seat
   * (0 again when the app is uninstalled). Absent where the node has no code-host app setup surface.
   */
  appInstallation?(handle: string, change: AppInstallation): Promise<void>;
  /** Routing on this node, when it runs here: takes the parsed bodies so it does not parse them again. */
  readonly parsed?: ParsedHandoff;
}

/** Where accepted bodies' parses go to routing (actors/integration/parsed-bodies.ts). */
export interface ParsedHandoff {
  keep(key: string, body: Uint8Array, json: unknown): void;
  forget(key: string, body: Uint8Array): void;
}

export interface AppInstallation {
  readonly action: 'created' | 'deleted';
  readonly installation_id: number;
  /** The app the installation belongs to, as the delivery names it; null when it names none. */
  readonly app_id: string | null;
}

export interface Accepted {
  readonly vendor: Vendor;
  readonly pipeline: Pipeline;
  /** Surface name for counts: `tracker-a`, `chat/{handle}`, `wiki/cloud`, ... */
  readonly surface: string;
  /** The vendor's delivery id, or the dedup key the spec names (wiki), or a body digest. */
  readonly deliveryId: string;
  readonly event: string;
  readonly seat: string | null;
  readonly scheme: string;
  readonly signatureHeaders: readonly string[];
  /**
   * The body as routing reads it (its JSON, or a chat form's `payload`), when the receiver parsed it already:
   * handed to routing on this node so the delivery is parsed once.
   */
  readonly parsed?: unknown;
}

/** Headers never stored: they carry credentials (values of signature headers are dropped too). */
const credentialHeaders = new Set(['authorization', 'x-service-token', 'cookie', 'proxy-authorization']);
/**
 * Names that carry a credential whatever the scheme: a vendor often sends a second, legacy signature
 * (SHA-1 beside SHA-256) that the receiver does not verify, and its value must not be kept either.
 */
const credentialName = /signature|token|secret|auth/;
const keptHeader = (name: string): boolean =>
  (name === 'content-type' ||
    name === 'user-agent' ||
    name.startsWith('x-') ||
    name.startsWith('webhook-')) &&
  !credentialName.test(name);

/** 503, no code (spec), `Retry-After`: the sender retries on its own. */
export function retryLater(detail: string, hint: string): ApiReply {
  return codelessReply(503, detail, hint, { 'Retry-After': '30' });
}

/** The answer of every receiver on a node without an active revision (the gateway's and chat's alike). */
export function unconfiguredNode(): ApiReply {
  return retryLater(
    'This node has no active configuration yet, so it cannot verify or route deliveries.',
    'Push the first revision; the sender will retry.',
  );
}

/** Only the logger: these run before the body too (see gate.ts). */
type Logged = { readonly log: Logger };

export function notConfigured(deps: ReceiverDeps, req: Logged, surface: string, what: string): ApiReply {
  deps.arrivals.count(surface, 'not_configured');
  req.log.warn({ event: 'webhook_not_configured', surface }, 'webhook_not_configured');
  return retryLater(
    `This receiver is not configured: ${what}.`,
    'Configure the secret for this receiver (see ops/webhooks.md); the sender retries on its own.',
  );
}

export function refused(deps: ReceiverDeps, req: Logged, surface: string, reason: Refusal): never {
  deps.arrivals.count(surface, 'refused');
  req.log.warn({ event: 'webhook_refused', surface, reason }, 'webhook_refused');
  throw new ApiError('invalid_token', {
    detail: `The delivery was not accepted: ${reason.replaceAll('_', ' ')}.`,
    hint: 'Check that the sender signs with the secret configured for this receiver, and that clocks agree.',
  });
}

export function malformed(deps: ReceiverDeps, req: Logged, surface: string): never {
  deps.arrivals.count(surface, 'refused');
  req.log.warn({ event: 'webhook_refused', surface, reason: 'malformed_body' }, 'webhook_refused');
  throw new ApiError('invalid_body', {
    detail: 'The delivery body is not the JSON this receiver expects.',
    hint: 'Send the vendor payload unchanged: JSON with `Content-Type: application/json`, or (chat, codehost-a) a form whose `payload` field holds it.',
    extra: { problems: wholeBodyProblem('expected the vendor’s JSON payload') },
  });
}

/** The body as JSON, or undefined when it is not JSON. */
export function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Bus header values are one line of visible ASCII: anything else (a vendor's JSON field) is hashed. */
function headerSafe(value: string): string {
  return /^[\x20-\x7e]{0,200}$/.test(value)
    ? value
    : `sha256:${createHash('sha256').update(value).digest('hex')}`;
}

/** 3. Appends the delivery durably, then answers; a duplicate is answered 2xx and creates nothing. */
export async function accept(deps: ReceiverDeps, req: ApiRequest, given: Accepted): Promise<ApiReply> {
  const a = { ...given, deliveryId: headerSafe(given.deliveryId), event: headerSafe(given.event) };
  const vendorHeaders: Record<string, string> = {};
  const signature = new Set(a.signatureHeaders);
  for (const [name, value] of Object.entries(req.headers))
    if (keptHeader(name) && !credentialHeaders.has(name) && !signature.has(name)) vendorHeaders[name] = value;
  const receivedAt = new Date(deps.now?.() ?? Date.now()).toISOString();
  const key = deliveryKey(a.pipeline, a.seat, a.deliveryId);
  // Before the append: routing may take the delivery before this resumes.
  const handoff = a.parsed === undefined ? undefined : deps.parsed;
  handoff?.keep(key, req.body, a.parsed);
  let ack;
  try {
    ack = await deps.bus.publish(Subjects.webhookDelivery(a.pipeline), req.body, {
      msgId: key,
      headers: {
        [RawHeader.Vendor]: a.vendor,
        [RawHeader.Pipeline]: a.pipeline,
        [RawHeader.DeliveryId]: a.deliveryId,
        [RawHeader.ReceivedAt]: receivedAt,
        [RawHeader.Event]: a.event,
        [RawHeader.Seat]: a.seat ?? '',
        [RawHeader.Scheme]: a.scheme,
        [RawHeader.SignatureHeaders]: JSON.stringify(a.signatureHeaders),
        [RawHeader.VendorHeaders]: JSON.stringify(vendorHeaders),
        [RawHeader.ContentType]: req.headers['content-type'] ?? '',
      },
    });
  } finally {
    if (ack === undefined || ack.duplicate) handoff?.forget(key, req.body);
  }
  await deps.arrivals.record(a.surface, ack.duplicate ? 'duplicate' : 'accepted');
  if (!ack.duplicate) await deps.backlog?.wait();
  return {
    status: 200,
    body: { accepted: true, duplicate: ack.duplicate },
    // On the request's own line: a busy receiver writes one line per delivery, not two.
    logged: {
      event: ack.duplicate ? 'webhook_duplicate' : 'webhook_accepted',
      surface: a.surface,
      delivery_id: a.deliveryId,
      vendor_event: a.event,
      seq: ack.seq,
    },
  };
}
