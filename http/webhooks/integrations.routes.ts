/**
 * `GET /integrations`: every inbound surface, how it is wired (path, listener, scheme, the headers it
 * reads), whether its signing secret is present (never the secret), and its arrival counts. Arrival
 * counts are history, so this is the `integrations` question (spec "Read routes": answered by every
 * live node, with `coverage`); the route is a thin adapter over it, as `/query/integrations` and the
 * socket's query channel are. The counts are the integrations projection's (a fold of the fleet's
 * arrival records), so every node gives the same answer and the asker's own stands (`mergeOwn`).
 */
import type { SurfaceCounts } from '../../projections/index.js';
import type { Coverage } from '../../schema/index.js';
import { adaptedQuery } from '../routes/query.catalogue.js';
import { ask, type Question } from '../routes/query.routes.js';
import type { RouteDef } from '../types.js';
import { monitorTokenUsable } from './monitor.verify.js';
import { seatSecret, type WebhookSettings } from './settings.js';

interface Surface {
  readonly surface: string;
  readonly vendor: string;
  readonly path: string;
  readonly scheme: string;
  readonly headers: readonly string[];
  readonly configured: boolean;
  readonly secret_present: boolean;
  readonly seat?: string;
}

export interface IntegrationsDeps {
  settings(): WebhookSettings;
  /** One surface's arrival counts, fleet-wide (the integrations projection). */
  arrivals(surface: string): SurfaceCounts;
  /** Brings the counts up to what this node has recorded (read-your-writes) before an answer. */
  sync?(): Promise<void>;
  readonly nodeId: string;
  /** Where third parties reach `/webhooks/*` (`public_base_url`); null when unknown. */
  publicBaseUrl(): string | null;
  /** True when `api.public.port` moves webhooks to the public listener. */
  readonly publicListener: boolean;
  /** Who answered: this node alone here; the fleet scatter (`integrations` in fleetMerges) names every node. */
  coverage(): Coverage;
}

function surfaces(s: WebhookSettings): Surface[] {
  const list: Surface[] = [
    { surface: 'tracker-a', vendor: 'tracker-a', path: '/webhooks/tracker-a', scheme: 'hmac-sha256', headers: ['x-hub-signature', 'x-tracker-a-webhook-identifier'], configured: s.trackerA.configured, secret_present: s.trackerA.secret !== null },
    { surface: 'codehost-a', vendor: 'codehost-a', path: '/webhooks/codehost-a', scheme: 'hmac-sha256', headers: ['x-codehost-a-signature-256', 'x-codehost-a-event', 'x-codehost-a-delivery'], configured: s.codehostA.configured, secret_present: s.codehostA.secret !== null },
    { surface: 'codehost-b', vendor: 'codehost-b', path: '/webhooks/codehost-b', scheme: 'standard-webhooks-v1', headers: ['webhook-id', 'webhook-timestamp', 'webhook-signature'], configured: s.codehostB.configured, secret_present: s.codehostB.secret !== null },
    { surface: 'tracker-b', vendor: 'tracker-b', path: '/webhooks/tracker-b', scheme: 'hmac-sha256-hex', headers: ['x-tracker-b-signature', 'x-tracker-b-event', 'x-tracker-b-delivery'], configured: s.trackerB.configured, secret_present: s.trackerB.secret !== null },
    { surface: 'wiki', vendor: 'wiki', path: '/webhooks/wiki', scheme: 'hmac-sha256', headers: ['x-hub-signature'], configured: s.wiki.configured, secret_present: s.wiki.secret !== null },
    { surface: 'wiki/cloud', vendor: 'wiki', path: '/webhooks/wiki/{event}', scheme: 'service-token', headers: ['x-service-token', '?token='], configured: s.wiki.configured, secret_present: s.wiki.token !== null },
    { surface: 'monitor', vendor: 'monitor', path: '/webhooks/monitor', scheme: 'service-token', headers: ['x-service-token'], configured: s.monitor.token !== null, secret_present: monitorTokenUsable(s.monitor.token) },
    { surface: 'relay', vendor: 'relay', path: '/webhooks/relay', scheme: 'jwt-rs256', headers: ['authorization'], configured: s.relay.appId !== null, secret_present: s.relay.appId !== null && s.relay.keySetUrl !== null },
  ]; // prettier-ignore
  for (const seat of s.directory.seats.values()) {
    if (seat.kind !== 'agent') continue;
    if (seat.integrations['chat'] !== undefined || s.chat.configured)
      list.push({ surface: `chat/${seat.handle}`, vendor: 'chat', seat: seat.handle, path: `/webhooks/chat/${seat.handle}`, scheme: 'chat-v0', headers: ['x-chat-signature', 'x-chat-request-timestamp'], configured: s.chat.configured, secret_present: seatSecret(s, seat.handle, 'chat', 'signing_secret') !== null }); // prettier-ignore
    if (seat.integrations['codehost_a'] !== undefined)
      list.push({ surface: `codehost-a/${seat.handle}`, vendor: 'codehost-a', seat: seat.handle, path: `/webhooks/codehost-a/${seat.handle}`, scheme: 'hmac-sha256', headers: ['x-codehost-a-signature-256', 'x-codehost-a-event', 'x-codehost-a-delivery'], configured: true, secret_present: seatSecret(s, seat.handle, 'codehost_a', 'webhook_secret') !== null }); // prettier-ignore
  }
  return list;
}

/** The one answer behind `GET /integrations`, `/query/integrations` and the socket's `integrations`. */
export function integrationsAnswer(deps: IntegrationsDeps) {
  const settings = deps.settings();
  const base = deps.publicBaseUrl();
  const rows = surfaces(settings).map((row) => ({
    ...row,
    public_url: base === null ? null : `${base.replace(/\/+$/, '')}${row.path}`,
    listener: deps.publicListener ? 'public' : 'api',
    arrivals: deps.arrivals(row.surface),
  }));
  return {
    node: deps.nodeId,
    revision: settings.revision,
    surfaces: rows,
    landing: ['/webhooks/chat-oauth', '/webhooks/codehost-a-app'],
    coverage: deps.coverage(),
  };
}

/** `integrations` as a registered question: a read (guarded only when anonymous reads are off), as the route. */
export function integrationsQuestions(deps: IntegrationsDeps): Map<string, Question> {
  const answer = async () => {
    await deps.sync?.();
    return integrationsAnswer(deps);
  };
  return new Map([['integrations', { guarded: false, answer }]]);
}

/** `GET /integrations`, asked of the same question the registry holds. */
export function integrationsRoutes(questions: ReadonlyMap<string, Question>): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/integrations',
      query: adaptedQuery('integrations'),
      handler: async (req) => ({ status: 200, body: await ask(questions, 'integrations', req.query, req) }),
    },
  ];
}
