/**
 * The HMAC- and token-verified receivers: tracker-a, codehost-a (shared and per seat), codehost-b,
 * tracker-b, wiki (self-hosted and cloud) and monitor. Each handler: 1. secret or 503, 2. verify or
 * 401, 3. JSON or 400, 4. dedup key, 5. durable append, then 2xx.
 */
import { Vendor } from '../../schema/index.js';
import type { ApiReply, ApiRequest, RouteDef } from '../types.js';
import { CodehostAHeaders, verifyCodehostA } from './codehost-a.verify.js';
import { CodehostBHeaders, verifyCodehostB } from './codehost-b.verify.js';
import { digestKey, headerId, pathOf, scalar, wikiDedupKey, wikiEventType } from './delivery-ids.js';
import { MonitorHeaders, monitorTokenUsable, verifyMonitor } from './monitor.verify.js';
import { accept, malformed, notConfigured, parseJson, refused, type ReceiverDeps } from './receiver.js';
import { seatSecret } from './settings.js';
import { TrackerAHeaders, verifyTrackerA } from './tracker-a.verify.js';
import { TrackerBHeaders, verifyTrackerB } from './tracker-b.verify.js';
import type { Verdict } from './verify.js';
import { verifyServiceToken, verifyWikiSigned, WikiHeaders } from './wiki.verify.js';

const now = (deps: ReceiverDeps): number => deps.now?.() ?? Date.now();

function checked(deps: ReceiverDeps, req: ApiRequest, surface: string, verdict: Verdict): unknown {
  if (!verdict.ok) refused(deps, req, surface, verdict.reason);
  const json = parseJson(req.body);
  if (json === undefined) malformed(deps, req, surface);
  return json;
}

function trackerA(deps: ReceiverDeps, req: ApiRequest): Promise<ApiReply> | ApiReply {
  const surface = 'tracker-a';
  const secret = deps.settings().trackerA.secret;
  if (secret === null)
    return notConfigured(deps, req, surface, 'integrations.tracker_a.webhook_secret is unset');
  const json = checked(deps, req, surface, verifyTrackerA(secret, req.headers, req.body));
  return accept(deps, req, {
    vendor: Vendor.TrackerA,
    pipeline: Vendor.TrackerA,
    surface,
    deliveryId: headerId(req.headers[TrackerAHeaders.delivery]) ?? digestKey(req.body),
    event: scalar(pathOf(json, 'webhookEvent')) ?? '',
    seat: null,
    scheme: 'hmac-sha256',
    signatureHeaders: [TrackerAHeaders.signature],
  });
}

function codehostA(deps: ReceiverDeps, req: ApiRequest): Promise<ApiReply> | ApiReply {
  const handle = req.params['handle'] ?? null;
  const surface = handle === null ? 'codehost-a' : `codehost-a/${handle}`;
  const secret =
    handle === null
      ? deps.settings().codehostA.secret
      : seatSecret(deps.settings(), handle, 'codehost_a', 'webhook_secret');
  if (secret === null)
    return notConfigured(
      deps,
      req,
      surface,
      handle === null
        ? 'integrations.codehost_a.webhook_secret is unset'
        : `seat ${handle} has no codehost-a app webhook secret`,
    );
  checked(deps, req, surface, verifyCodehostA(secret, req.headers, req.body));
  return accept(deps, req, {
    vendor: Vendor.CodehostA,
    pipeline: Vendor.CodehostA,
    surface,
    deliveryId: headerId(req.headers[CodehostAHeaders.delivery]) ?? digestKey(req.body),
    event: headerId(req.headers[CodehostAHeaders.event]) ?? '',
    seat: handle,
    scheme: 'hmac-sha256',
    signatureHeaders: [CodehostAHeaders.signature],
  });
}

function codehostB(deps: ReceiverDeps, req: ApiRequest): Promise<ApiReply> | ApiReply {
  const surface = 'codehost-b';
  const secret = deps.settings().codehostB.secret;
  if (secret === null)
    return notConfigured(deps, req, surface, 'integrations.codehost_b.signing_secret is unset');
  const json = checked(deps, req, surface, verifyCodehostB(secret, req.headers, req.body, now(deps)));
  return accept(deps, req, {
    vendor: Vendor.CodehostB,
    pipeline: Vendor.CodehostB,
    surface,
    deliveryId: req.headers[CodehostBHeaders.id] ?? digestKey(req.body),
    event: scalar(pathOf(json, 'object_kind')) ?? scalar(pathOf(json, 'event_name')) ?? '',
    seat: null,
    scheme: 'standard-webhooks-v1',
    signatureHeaders: [CodehostBHeaders.signature, CodehostBHeaders.id, CodehostBHeaders.timestamp],
  });
}

function trackerB(deps: ReceiverDeps, req: ApiRequest): Promise<ApiReply> | ApiReply {
  const surface = 'tracker-b';
  const secret = deps.settings().trackerB.secret;
  if (secret === null)
    return notConfigured(deps, req, surface, 'integrations.tracker_b.webhook_secret is unset');
  const json = checked(deps, req, surface, verifyTrackerB(secret, req.headers, req.body));
  return accept(deps, req, {
    vendor: Vendor.TrackerB,
    pipeline: Vendor.TrackerB,
    surface,
    deliveryId: headerId(req.headers[TrackerBHeaders.delivery]) ?? digestKey(req.body),
    event: headerId(req.headers[TrackerBHeaders.event]) ?? scalar(pathOf(json, 'event')) ?? '',
    seat: null,
    scheme: 'hmac-sha256-hex',
    signatureHeaders: [TrackerBHeaders.signature],
  });
}

function wikiSelfHosted(deps: ReceiverDeps, req: ApiRequest): Promise<ApiReply> | ApiReply {
  const surface = 'wiki';
  const secret = deps.settings().wiki.secret;
  if (secret === null) return notConfigured(deps, req, surface, 'integrations.wiki.webhook_secret is unset');
  const json = checked(deps, req, surface, verifyWikiSigned(secret, req.headers, req.body));
  return accept(deps, req, {
    vendor: Vendor.Wiki,
    pipeline: Vendor.Wiki,
    surface,
    deliveryId: wikiDedupKey(json, req.body),
    event: wikiEventType(json) ?? '',
    seat: null,
    scheme: 'hmac-sha256',
    signatureHeaders: [WikiHeaders.signature],
  });
}

function wikiCloud(deps: ReceiverDeps, req: ApiRequest): Promise<ApiReply> | ApiReply {
  const surface = 'wiki/cloud';
  const token = deps.settings().wiki.token;
  if (token === null)
    return notConfigured(deps, req, surface, 'the wiki cloud token (SVC_WIKI_WEBHOOK_TOKEN) is unset');
  const event = req.params['event'] ?? '';
  const verdict = verifyServiceToken(token, req.headers[WikiHeaders.token], req.query.get('token'));
  const json = checked(deps, req, surface, verdict);
  return accept(deps, req, {
    vendor: Vendor.Wiki,
    pipeline: Vendor.Wiki,
    surface,
    deliveryId: wikiDedupKey(json, req.body, event),
    event: wikiEventType(json) ?? event,
    seat: null,
    scheme: 'service-token',
    signatureHeaders: [WikiHeaders.token],
  });
}

function monitor(deps: ReceiverDeps, req: ApiRequest): Promise<ApiReply> | ApiReply {
  const surface = 'monitor';
  const token = deps.settings().monitor.token;
  if (!monitorTokenUsable(token))
    return notConfigured(deps, req, surface, 'the monitor token is unset or shorter than 26 characters');
  const json = checked(deps, req, surface, verifyMonitor(token, req.headers));
  return accept(deps, req, {
    vendor: Vendor.Monitor,
    pipeline: Vendor.Monitor,
    surface,
    // Alerts carry no delivery id: an identical body is the same alert.
    deliveryId: digestKey(req.body),
    event: scalar(pathOf(json, 'status')) ?? 'alert',
    seat: null,
    scheme: 'service-token',
    signatureHeaders: [MonitorHeaders.token],
  });
}

export function signedRoutes(deps: ReceiverDeps): RouteDef[] {
  const post = (
    pattern: string,
    handler: (d: ReceiverDeps, r: ApiRequest) => Promise<ApiReply> | ApiReply,
  ): RouteDef => ({
    method: 'POST',
    pattern,
    kind: 'webhook',
    handler: (req) => handler(deps, req),
  });
  return [
    post('/webhooks/tracker-a', trackerA),
    post('/webhooks/codehost-a', codehostA),
    post('/webhooks/codehost-a/:handle', codehostA),
    post('/webhooks/codehost-b', codehostB),
    post('/webhooks/tracker-b', trackerB),
    post('/webhooks/wiki', wikiSelfHosted),
    post('/webhooks/wiki/:event', wikiCloud),
    post('/webhooks/monitor', monitor),
  ];
}
