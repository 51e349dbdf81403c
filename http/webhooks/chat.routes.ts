/**
 * chat, one route per seat's app: `POST /webhooks/chat/{handle}`. The URL-verification challenge is
 * answered unconditionally (the vendor sends it before any secret can be pasted in, and echoing a
 * challenge discloses nothing); every other event needs the seat's signing secret.
 */
import { Vendor } from '../../schema/index.js';
import type { ApiReply, ApiRequest, RouteDef } from '../types.js';
import { ChatHeaders, verifyChat } from './chat.verify.js';
import { digestKey, headerId, isRecord, pathOf, scalar } from './delivery-ids.js';
import { accept, malformed, notConfigured, refused, retryLater, type ReceiverDeps } from './receiver.js';
import { seatSecret } from './settings.js';

/** The body as the vendor sends it: JSON events, or a form (interactions carry JSON in `payload`). */
export function chatPayload(body: Buffer, contentType: string): unknown {
  const text = body.toString('utf8');
  try {
    if (contentType.startsWith('application/x-www-form-urlencoded')) {
      const form = new URLSearchParams(text);
      const payload = form.get('payload');
      return payload !== null ? (JSON.parse(payload) as unknown) : Object.fromEntries(form);
    }
    return body.length === 0 ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

async function chat(deps: ReceiverDeps, req: ApiRequest): Promise<ApiReply> {
  const handle = req.params['handle'] ?? '';
  const surface = `chat/${handle}`;
  const json = chatPayload(req.body, req.headers['content-type'] ?? '');
  // 0. The challenge, before anything else (this route serves an unconfigured node for it).
  if (isRecord(json) && json['type'] === 'url_verification' && typeof json['challenge'] === 'string')
    return { status: 200, body: { challenge: json['challenge'] } };
  if (!deps.configured())
    return retryLater('This node has no active configuration yet, so it cannot verify or route deliveries.');
  const secret = seatSecret(deps.settings(), handle, 'chat', 'signing_secret');
  if (secret === null) return notConfigured(deps, req, surface, `seat ${handle} has no chat signing secret`);
  const verdict = verifyChat(secret, req.headers, req.body, deps.now?.() ?? Date.now());
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
  });
}

export function chatRoutes(deps: ReceiverDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/webhooks/chat/:handle',
      kind: 'webhook',
      servesUnconfigured: true,
      handler: (req) => chat(deps, req),
    },
  ];
}
