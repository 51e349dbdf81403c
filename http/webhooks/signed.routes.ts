/**
 * The HMAC- and token-verified receivers: tracker-a, codehost-a (shared and per seat), codehost-b,
 * tracker-b, wiki (self-hosted and cloud) and monitor. Each: 0. a seat handle or wiki event name outside
 * its grammar is 404 `no_route`, 1. secret or 503 and credential header or
 * 401, from the headers (the gate, before the body is read), 2. verify or 401, 3. JSON (codehost-a: or a
 * form's `payload`) or 400, 4. dedup key, 5. durable append, then 2xx.
 */
import type { Logger } from 'pino';
import { deliveryJson, Vendor, type Pipeline } from '../../schema/index.js';
import { queryValue } from '../routes/single.param.js';
import type { ApiReply, ApiRequest, RequestHead, RouteDef } from '../types.js';
import { CodehostAHeaders, verifyCodehostA } from './codehost-a.verify.js';
import { CodehostBHeaders, verifyCodehostB } from './codehost-b.verify.js';
import { digestKey, headerId, pathOf, scalar, wikiDedupKey, wikiEventType } from './delivery-ids.js';
import { seatHandleServed, unserved, type Unserved } from './path-grammar.js';
import { MonitorHeaders, monitorTokenUsable, verifyMonitor } from './monitor.verify.js';
import { blockCredential, credential, failClosed, inHeader, SWITCHED_OFF, type Gate } from './gate.js';
import { accept, malformed, notConfigured, refused, type ReceiverDeps } from './receiver.js';
import { seatSecret } from './settings.js';
import { TrackerAHeaders, verifyTrackerA } from './tracker-a.verify.js';
import { TrackerBHeaders, verifyTrackerB } from './tracker-b.verify.js';
import type { Refusal, Verdict } from './verify.js';
import { verifyServiceToken, verifyWikiSigned, WikiHeaders } from './wiki.verify.js';

const now = (deps: ReceiverDeps): number => deps.now?.() ?? Date.now();

/** Verified, then read as its pipeline reads it (routing reads it through the same `deliveryJson`). */
function checked(
  deps: ReceiverDeps,
  req: ApiRequest,
  surface: string,
  verdict: Verdict,
  pipeline: Pipeline,
): unknown {
  if (!verdict.ok) refused(deps, req, surface, verdict.reason);
  const json = deliveryJson(pipeline, req.headers['content-type'] ?? '', req.body.toString('utf8'));
  if (json === undefined) malformed(deps, req, surface);
  return json;
}

type Handler = (deps: ReceiverDeps, req: ApiRequest, secret: string, surface: string) => Promise<ApiReply>;

const trackerAGate: Gate = {
  surface: () => 'tracker-a',
  credential: (deps) => blockCredential(deps.settings().trackerA, 'integrations.tracker_a'),
  absent: inHeader(TrackerAHeaders.signature),
};

function trackerA(deps: ReceiverDeps, req: ApiRequest, secret: string, surface: string): Promise<ApiReply> {
  const json = checked(deps, req, surface, verifyTrackerA(secret, req.headers, req.body), Vendor.TrackerA);
  return accept(deps, req, {
    vendor: Vendor.TrackerA,
    pipeline: Vendor.TrackerA,
    surface,
    deliveryId: headerId(req.headers[TrackerAHeaders.delivery]) ?? digestKey(req.body),
    event: scalar(pathOf(json, 'webhookEvent')) ?? '',
    seat: null,
    scheme: 'hmac-sha256',
    signatureHeaders: [TrackerAHeaders.signature],
    parsed: json,
  });
}

/** Where refusals to a per-seat path of a handle no seat has are counted. */
const UNKNOWN_SEAT_SURFACE = 'codehost-a/*';

const codehostAGate: Gate = {
  // Counts are kept forever per surface: a handle the document does not name gets no surface of its own,
  // so unsigned deliveries to made-up handles cannot add a record (and a counter) per name.
  surface(req, deps) {
    const handle = req.params['handle'];
    if (handle === undefined) return 'codehost-a';
    return deps.settings().directory.seats.has(handle) ? `codehost-a/${handle}` : UNKNOWN_SEAT_SURFACE;
  },
  credential(deps, req) {
    const handle = req.params['handle'];
    return handle === undefined
      ? blockCredential(deps.settings().codehostA, 'integrations.codehost_a')
      : credential(
          seatSecret(deps.settings(), handle, 'codehost_a', 'webhook_secret'),
          `seat ${handle} has no codehost-a app webhook secret`,
        );
  },
  absent: inHeader(CodehostAHeaders.signature),
};

async function codehostA(
  deps: ReceiverDeps,
  req: ApiRequest,
  secret: string,
  surface: string,
): Promise<ApiReply> {
  const handle = req.params['handle'] ?? null;
  const json = checked(deps, req, surface, verifyCodehostA(secret, req.headers, req.body), Vendor.CodehostA);
  const event = headerId(req.headers[CodehostAHeaders.event]) ?? '';
  const reply = await accept(deps, req, {
    vendor: Vendor.CodehostA,
    pipeline: Vendor.CodehostA,
    surface,
    deliveryId: headerId(req.headers[CodehostAHeaders.delivery]) ?? digestKey(req.body),
    event,
    seat: handle,
    scheme: 'hmac-sha256',
    signatureHeaders: [CodehostAHeaders.signature],
    parsed: json,
  });
  if (handle !== null && event === 'installation') await noteInstallation(deps, req, handle, json);
  return reply;
}

/**
 * The seat's own app was installed or uninstalled: the delivery is signed with that app's secret, so its
 * installation id is recorded on the seat (the roster then leaves `install_app`). The delivery is already
 * kept; a failed record is logged, never answered as a refusal (the vendor would only retry it).
 */
async function noteInstallation(deps: ReceiverDeps, req: ApiRequest, handle: string, json: unknown) {
  const action = scalar(pathOf(json, 'action'));
  const id = pathOf(json, 'installation', 'id');
  if (action !== 'created' && action !== 'deleted') return;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) return;
  if (deps.appInstallation === undefined) {
    // Recording edits the seat, which needs the app flow (a keyring and both code-host locations).
    req.log.warn(
      { event: 'codehost_app_installation_unrecorded', seat: handle, reason: 'app_flow_unavailable' },
      'codehost_app_installation_unrecorded: this node has no code-host app flow (keyring, SVC_CODEHOST_A_API_URL and SVC_CODEHOST_A_WEB_URL)',
    );
    return;
  }
  try {
    await deps.appInstallation(handle, {
      action,
      installation_id: id,
      app_id: scalar(pathOf(json, 'installation', 'app_id')),
    });
  } catch (error) {
    req.log.warn({ event: 'codehost_app_installation_unrecorded', seat: handle, err: error }, 'codehost_app_installation_unrecorded'); // prettier-ignore
  }
}

const codehostBGate: Gate = {
  surface: () => 'codehost-b',
  credential: (deps) =>
    blockCredential(
      deps.settings().codehostB,
      'integrations.codehost_b',
      'integrations.codehost_b.signing_secret',
      SWITCHED_OFF,
    ),
  absent: inHeader(CodehostBHeaders.signature),
};

function codehostB(deps: ReceiverDeps, req: ApiRequest, secret: string, surface: string): Promise<ApiReply> {
  const json = checked(
    deps,
    req,
    surface,
    verifyCodehostB(secret, req.headers, req.body, now(deps)),
    Vendor.CodehostB,
  );
  return accept(deps, req, {
    vendor: Vendor.CodehostB,
    pipeline: Vendor.CodehostB,
    surface,
    deliveryId: req.headers[CodehostBHeaders.id] ?? digestKey(req.body),
    event: scalar(pathOf(json, 'object_kind')) ?? scalar(pathOf(json, 'event_name')) ?? '',
    seat: null,
    scheme: 'standard-webhooks-v1',
    signatureHeaders: [CodehostBHeaders.signature, CodehostBHeaders.id, CodehostBHeaders.timestamp],
    parsed: json,
  });
}

const trackerBGate: Gate = {
  surface: () => 'tracker-b',
  credential: (deps) =>
    blockCredential(deps.settings().trackerB, 'integrations.tracker_b', undefined, SWITCHED_OFF),
  absent: inHeader(TrackerBHeaders.signature),
};

function trackerB(deps: ReceiverDeps, req: ApiRequest, secret: string, surface: string): Promise<ApiReply> {
  const json = checked(deps, req, surface, verifyTrackerB(secret, req.headers, req.body), Vendor.TrackerB);
  return accept(deps, req, {
    vendor: Vendor.TrackerB,
    pipeline: Vendor.TrackerB,
    surface,
    deliveryId: headerId(req.headers[TrackerBHeaders.delivery]) ?? digestKey(req.body),
    event: headerId(req.headers[TrackerBHeaders.event]) ?? scalar(pathOf(json, 'event')) ?? '',
    seat: null,
    scheme: 'hmac-sha256-hex',
    signatureHeaders: [TrackerBHeaders.signature],
    parsed: json,
  });
}

const wikiGate: Gate = {
  surface: () => 'wiki',
  credential: (deps) => blockCredential(deps.settings().wiki, 'integrations.wiki'),
  absent: inHeader(WikiHeaders.signature),
};

function wikiSelfHosted(
  deps: ReceiverDeps,
  req: ApiRequest,
  secret: string,
  surface: string,
): Promise<ApiReply> {
  const json = checked(deps, req, surface, verifyWikiSigned(secret, req.headers, req.body), Vendor.Wiki);
  return accept(deps, req, {
    vendor: Vendor.Wiki,
    pipeline: Vendor.Wiki,
    surface,
    deliveryId: wikiDedupKey(json, req.body),
    event: wikiEventType(json) ?? '',
    seat: null,
    scheme: 'hmac-sha256',
    signatureHeaders: [WikiHeaders.signature],
    parsed: json,
  });
}

/**
 * The `?token=` of a wiki cloud delivery: given more than once it is refused like a bad token (401,
 * counted) rather than the first tried, since a sender means one token.
 */
function wikiQueryToken(req: RequestHead): { readonly repeated: true } | { readonly value: string | null } {
  const value = queryValue(req.query, 'token');
  return typeof value === 'object' && value !== null ? { repeated: true } : { value };
}

const wikiCloudGate: Gate = {
  surface: () => 'wiki/cloud',
  credential: (deps) =>
    blockCredential(
      { configured: deps.settings().wiki.configured, secret: deps.settings().wiki.token },
      'integrations.wiki',
      'the wiki cloud token (SVC_WIKI_WEBHOOK_TOKEN)',
    ),
  // The token may come as `?token=` instead of the header.
  absent: (req: RequestHead): Refusal | null => {
    const query = wikiQueryToken(req);
    if ('repeated' in query) return 'bad_token';
    return inHeader(WikiHeaders.token, 'missing_token')(req) !== null && !query.value
      ? 'missing_token'
      : null;
  },
};

/**
 * The `{event}` of a wiki cloud delivery: the wiki names its events as short tokens (`page_created`,
 * `comment_updated`, `blog_trashed`; the relay's `avi:confluence:created:page` form too), so a name outside
 * 1-64 letters, digits, `_`, `.`, `:` and `-` is a path this receiver does not serve.
 */
const WIKI_EVENT = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;
const wikiUnserved: Unserved = {
  route: 'POST /webhooks/wiki/{event}',
  event: 'webhook_unknown_event',
  surface: 'wiki/cloud',
  noun: 'event name',
  field: 'name',
  hint: 'A wiki event name is 1 to 64 letters, digits, `_`, `.`, `:` or `-`, starting with a letter (e.g. /webhooks/wiki/page_created).',
};

function wikiEvent(req: RequestHead, log: Logger): string {
  const event = req.params['event'] ?? '';
  return WIKI_EVENT.test(event) ? event : unserved(log, wikiUnserved, event);
}

function wikiCloud(deps: ReceiverDeps, req: ApiRequest, token: string, surface: string): Promise<ApiReply> {
  const event = wikiEvent(req, req.log);
  const query = wikiQueryToken(req);
  const verdict: Verdict =
    'repeated' in query
      ? { ok: false, reason: 'bad_token' }
      : verifyServiceToken(token, req.headers[WikiHeaders.token], query.value);
  const json = checked(deps, req, surface, verdict, Vendor.Wiki);
  return accept(deps, req, {
    vendor: Vendor.Wiki,
    pipeline: Vendor.Wiki,
    surface,
    deliveryId: wikiDedupKey(json, req.body, event),
    event: wikiEventType(json) ?? event,
    seat: null,
    scheme: 'service-token',
    signatureHeaders: [WikiHeaders.token],
    parsed: json,
  });
}

const monitorGate: Gate = {
  surface: () => 'monitor',
  credential(deps) {
    const token = deps.settings().monitor.token;
    return credential(
      monitorTokenUsable(token) ? token : null,
      'the monitor token is unset or shorter than 26 characters',
    );
  },
  absent: inHeader(MonitorHeaders.token, 'missing_token'),
};

function monitor(deps: ReceiverDeps, req: ApiRequest, token: string, surface: string): Promise<ApiReply> {
  const json = checked(deps, req, surface, verifyMonitor(token, req.headers), Vendor.Monitor);
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
    parsed: json,
  });
}

export function signedRoutes(deps: ReceiverDeps): RouteDef[] {
  /** `served` refuses a path the route's grammar does not serve, before the gate. */
  const post = (
    pattern: string,
    gate: Gate,
    handler: Handler,
    served?: (req: RequestHead, log: Logger) => unknown,
  ): RouteDef => {
    const gated = failClosed(deps, gate);
    return {
      method: 'POST',
      pattern,
      kind: 'webhook',
      beforeBody: (req, log) => {
        served?.(req, log);
        return gated(req, log);
      },
      handler: async (req) => {
        const surface = gate.surface(req, deps);
        const secret = gate.credential(deps, req);
        if (!secret.ok) return notConfigured(deps, req, surface, secret.what);
        return handler(deps, req, secret.value, surface);
      },
    };
  };
  return [
    post('/webhooks/tracker-a', trackerAGate, trackerA),
    post('/webhooks/codehost-a', codehostAGate, codehostA),
    post(
      '/webhooks/codehost-a/:handle',
      codehostAGate,
      codehostA,
      seatHandleServed('POST /webhooks/codehost-a/{handle}', UNKNOWN_SEAT_SURFACE),
    ),
    post('/webhooks/codehost-b', codehostBGate, codehostB),
    post('/webhooks/tracker-b', trackerBGate, trackerB),
    post('/webhooks/wiki', wikiGate, wikiSelfHosted),
    post('/webhooks/wiki/:event', wikiCloudGate, wikiCloud, wikiEvent),
    post('/webhooks/monitor', monitorGate, monitor),
  ];
}
