/**
 * chat, one route per seat's app: `POST /webhooks/chat/{handle}`. The URL-verification challenge is
 * answered unconditionally (the vendor sends it before any secret can be pasted in, and echoing a
 * challenge discloses nothing); every other event needs the seat's signing secret. So a delivery that
 * cannot be verified (no configuration, no secret, no signature header) is read only while it is small
 * enough to be a challenge; a larger one is refused (503 or 401) before its body is read. A handle that
 * is no agent seat of the active revision is 404 `not_found`: no secret can ever verify it, and a 503
 * would have the vendor retry forever. A handle no seat could have (outside the seat grammar) is 404
 * `no_route` before the body, a challenge included.
 */
import type { Logger } from 'pino';
import { deliveryJson, Vendor } from '../../schema/index.js';
import { ApiError } from '../api-error.js';
import type { ApiReply, ApiRequest, RequestHead, RouteDef } from '../types.js';
import { ChatHeaders, verifyChat } from './chat.verify.js';
import { digestKey, headerId, isRecord, pathOf, scalar } from './delivery-ids.js';
import { credential, type Credential } from './gate.js';
import { seatHandleServed } from './path-grammar.js';
import {
  accept,
  malformed,
  notConfigured,
  refused,
  unconfiguredNode,
  type ReceiverDeps,
} from './receiver.js';
import { seatSecret } from './settings.js';

/** The largest unverifiable body read in case it is a challenge (a real one is about 150 bytes). */
export const CHALLENGE_MAX_BYTES = 4096;

/**
 * A known agent seat's signing secret, or what is unset: chat not enabled (`integrations.chat`, the
 * enable-marker, is absent: a disabled or disconnected chat wakes nobody, though seats keep their app
 * credentials), or no signing secret on the seat.
 */
function chatSecret(deps: ReceiverDeps, handle: string): Credential {
  const settings = deps.settings();
  if (!settings.chat.configured) return credential(null, 'integrations.chat is unset (chat is not enabled)');
  return credential(
    seatSecret(settings, handle, 'chat', 'signing_secret'),
    `seat ${handle} has no chat signing secret`,
  );
}

/** Refuses a handle that names no agent seat (unknown, or a human seat, which carries no chat app). */
function requireAgentSeat(deps: ReceiverDeps, handle: string, log: Logger): void {
  if (deps.settings().directory.seats.get(handle)?.kind === 'agent') return;
  log.warn(
    { event: 'webhook_unknown_seat', surface: 'chat', handle: handle.slice(0, 64) },
    'webhook_unknown_seat',
  );
  throw new ApiError('not_found', {
    detail: `No agent seat ${handle} in the active configuration receives chat events.`,
    hint: "Point the chat app's event URL at /webhooks/chat/<handle> of an agent seat (see GET /agents).",
  });
}

const chatHandle = seatHandleServed('POST /webhooks/chat/{handle}', 'chat');

/**
 * Before the body: a handle no seat could have, then an unverifiable delivery too large (or too unknown
 * in length) to be a challenge.
 */
function beforeChat(deps: ReceiverDeps, req: RequestHead, log: Logger): ApiReply | void {
  chatHandle(req, log);
  const length = Number(req.headers['content-length'] ?? '0');
  const chunked = (req.headers['transfer-encoding'] ?? '') !== '';
  if (!chunked && Number.isSafeInteger(length) && length <= CHALLENGE_MAX_BYTES) return undefined;
  const handle = req.params['handle'] ?? '';
  const surface = `chat/${handle}`;
  if (!deps.configured()) return unconfiguredNode();
  requireAgentSeat(deps, handle, log);
  const secret = chatSecret(deps, handle);
  if (!secret.ok) return notConfigured(deps, { log }, surface, secret.what);
  if ((req.headers[ChatHeaders.signature] ?? '').trim() === '')
    refused(deps, { log }, surface, 'missing_signature');
  return undefined;
}

/** The body as the vendor sends it: JSON events, or a form (interactions carry JSON in `payload`). */
export function chatPayload(body: Buffer, contentType: string): unknown {
  return deliveryJson(Vendor.Chat, contentType, body.toString('utf8'));
}

async function chat(deps: ReceiverDeps, req: ApiRequest): Promise<ApiReply> {
  const handle = req.params['handle'] ?? '';
  const surface = `chat/${handle}`;
  const json = chatPayload(req.body, req.headers['content-type'] ?? '');
  // 0. The challenge, before anything else (this route serves an unconfigured node for it).
  if (isRecord(json) && json['type'] === 'url_verification' && typeof json['challenge'] === 'string')
    return { status: 200, body: { challenge: json['challenge'] } };
  if (!deps.configured()) return unconfiguredNode();
  requireAgentSeat(deps, handle, req.log);
  const secret = chatSecret(deps, handle);
  if (!secret.ok) return notConfigured(deps, req, surface, secret.what);
  const verdict = verifyChat(secret.value, req.headers, req.body, deps.now?.() ?? Date.now());
  if (!verdict.ok) refused(deps, req, surface, verdict.reason);
  if (json === undefined) malformed(deps, req, surface);
  return accept(deps, req, {
    vendor: Vendor.Chat,
    pipeline: Vendor.Chat,
    surface,
    deliveryId:
      scalar(pathOf(json, 'event_id')) ??
      scalar(pathOf(json, 'trigger_id')) ??
      headerId(req.headers['x-chat-delivery']) ??
      digestKey(req.body),
    event: scalar(pathOf(json, 'event', 'type')) ?? scalar(pathOf(json, 'type')) ?? '',
    seat: handle,
    scheme: 'chat-v0',
    signatureHeaders: [ChatHeaders.signature, ChatHeaders.timestamp],
    parsed: json,
  });
}

export function chatRoutes(deps: ReceiverDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/webhooks/chat/:handle',
      kind: 'webhook',
      servesUnconfigured: true,
      beforeBody: (req, log) => beforeChat(deps, req, log),
      handler: (req) => chat(deps, req),
    },
  ];
}
