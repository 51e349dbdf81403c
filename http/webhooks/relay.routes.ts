/**
 * relay: events forwarded by the app platform, `Authorization: Bearer <JWT>` checked against the vendor
 * key set. Without `relay_app_id` or the key set location (503), or without `Authorization` (401), the
 * delivery is refused before its body is read; otherwise the gateway has read (drained) the whole body
 * before this runs, so a slow verification never leaves the sender mid-upload. `avi:jira:*` joins the
 * tracker-a pipeline (keyed on the event's own marks), `avi:confluence:*` the wiki one (with the wiki dedup
 * key), each only while its block is in the document (else 503, as that vendor's own
 * receiver answers); other events are acknowledged and dropped.
 */
import { Vendor } from '../../schema/index.js';
import type { ApiReply, ApiRequest, RouteDef } from '../types.js';
import { pathOf, scalar, trackerAEventKey, wikiDedupKey } from './delivery-ids.js';
import { credential, failClosed, inHeader, type Gate } from './gate.js';
import { KeySetUnavailable } from './relay-keys.js';
import { RelayHeaders, verifyRelay } from './relay.verify.js';
import {
  accept,
  malformed,
  notConfigured,
  parseJson,
  refused,
  retryLater,
  type ReceiverDeps,
} from './receiver.js';

/** Wiki events the relay forwards (spec): page created/updated/trashed/deleted, comment and blog post. */
const wikiEvents = new Set([
  'avi:confluence:created:page',
  'avi:confluence:updated:page',
  'avi:confluence:trashed:page',
  'avi:confluence:deleted:page',
  'avi:confluence:created:comment',
  'avi:confluence:updated:comment',
  'avi:confluence:created:blogpost',
  'avi:confluence:updated:blogpost',
]);

const unsetAppId = 'integrations.relay_app_id is unset';
const unsetKeySet = 'the relay key set location is unset';
/**
 * The relay carries the cloud events of two vendors; one whose block is absent (never set up, or
 * disconnected) wakes nobody: its events answer 503 as that vendor's own receiver does, and are kept nowhere.
 */
const pipelineOff = (block: 'tracker_a' | 'wiki', events: string): string =>
  `integrations.${block} is unset, so the relay's ${events} events are not taken`;

const relayGate: Gate = {
  surface: () => 'relay',
  credential(deps) {
    const { appId, keySetUrl } = deps.settings().relay;
    return appId === null
      ? credential(null, unsetAppId)
      : credential(keySetUrl === null ? null : appId, unsetKeySet);
  },
  absent: inHeader(RelayHeaders.authorization, 'missing_token'),
};

async function relay(deps: ReceiverDeps, req: ApiRequest): Promise<ApiReply> {
  const surface = 'relay';
  const { appId, keySetUrl } = deps.settings().relay;
  if (appId === null) return notConfigured(deps, req, surface, unsetAppId);
  if (keySetUrl === null) return notConfigured(deps, req, surface, unsetKeySet);
  let verdict;
  try {
    verdict = await verifyRelay(appId, deps.relayKeys(keySetUrl), req.headers, deps.now?.() ?? Date.now());
  } catch (error) {
    if (!(error instanceof KeySetUnavailable)) throw error;
    req.log.warn({ event: 'relay_keys_unavailable', reason: error.message }, 'relay_keys_unavailable');
    // Nothing here is misconfigured: the vendor's key set did not come (its answer is never quoted).
    return retryLater(
      "The relay vendor's key set could not be fetched, so the delivery's token cannot be verified yet.",
      'The sender will retry; the key set is fetched again at most every 30 s. If this lasts, check that SVC_RELAY_JWKS_URL is the vendor key set.',
    );
  }
  if (!verdict.ok) refused(deps, req, surface, verdict.reason);
  const json = parseJson(req.body);
  if (json === undefined) malformed(deps, req, surface);
  const event = scalar(pathOf(json, 'eventType')) ?? '';
  const common = { vendor: Vendor.Relay, surface, event, seat: null, scheme: 'jwt-rs256' } as const;
  const signatureHeaders = [RelayHeaders.authorization];
  const settings = deps.settings();
  if (event.startsWith('avi:jira:')) {
    if (!settings.trackerA.configured)
      return notConfigured(deps, req, surface, pipelineOff('tracker_a', 'avi:jira:*'));
    return accept(deps, req, {
      ...common,
      pipeline: Vendor.TrackerA,
      deliveryId: trackerAEventKey(json, req.body, event),
      signatureHeaders,
      parsed: json,
    });
  }
  if (wikiEvents.has(event)) {
    if (!settings.wiki.configured)
      return notConfigured(deps, req, surface, pipelineOff('wiki', 'avi:confluence:*'));
    return accept(deps, req, {
      ...common,
      pipeline: Vendor.Wiki,
      deliveryId: wikiDedupKey(json, req.body, event),
      signatureHeaders,
      parsed: json,
    });
  }
  req.log.info({ event: 'relay_event_ignored', vendor_event: event.slice(0, 100) }, 'relay_event_ignored');
  return { status: 200, body: { accepted: false, ignored: true } };
}

export function relayRoutes(deps: ReceiverDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/webhooks/relay',
      kind: 'webhook',
      // The relay's sender authenticates with `Authorization: Bearer` (an invocation token): RFC 6750's challenge.
      bearerChallenge: true,
      beforeBody: failClosed(deps, relayGate),
      handler: (req) => relay(deps, req),
    },
  ];
}
