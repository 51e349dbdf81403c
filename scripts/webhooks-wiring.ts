/**
 * Inbound webhooks on one node: the receivers and `/integrations` (the `integrations` question) on the
 * gateway, the integration
 * actor (raw deliveries -> notifications) and the router (notifications -> seat inboxes). Settings
 * follow the active revision: opened, `${VAR}`-resolved (store first, then environment), rebuilt
 * when the active revision changes.
 */
import { keyringFrom, openDocument, Streams } from '../bus/index.js';
import type { Logger } from 'pino';
import {
  drainRetiredNotify,
  openRouter,
  ParsedBodies,
  type RateWindow,
  peopleFrom,
  SharedAccounts,
  startIntegrationHost,
  type People,
  type SiteIntegration,
} from '../actors/index.js';
import type { Bus, Subscription } from '../bus/index.js';
import {
  Arrivals,
  defaultBacklog,
  RoutingBacklog,
  integrationsQuestions,
  integrationsRoutes,
  landingRoutes,
  relayKeySet,
  unconfiguredSettings,
  webhookRoutes,
  webhookSettingsFrom,
  type AuthSettings,
  type ExtraSecrets,
  type Question,
  type RelayKeySet,
  type RouteDef,
  type WebhookSettings,
} from '../http/index.js';
import { activeRevision, activeRevisionId, type ConfigView } from '../projections/index.js';
import { codehostAppFlow } from './codehost-app-wiring.js';
import type { IntegrationsView } from './integrations-view.js';
import {
  Company,
  knownKeysAt,
  substituteDeep,
  withoutUnknownKeys,
  type Coverage,
  type Resolver,
  type TierA,
} from '../schema/index.js';

export interface Webhooks {
  /**
   * Receivers, `/integrations` (asking `asked`, default this subsystem's own question: this node alone),
   * the landing pages and the app flow's begin route (guarded by `auth`).
   */
  routes(auth: AuthSettings, asked?: ReadonlyMap<string, Question>): RouteDef[];
  /** `integrations`: join it to the node's registry (`/query/integrations`, the socket's query channel). */
  readonly questions: ReadonlyMap<string, Question>;
  settings(): WebhookSettings;
  people(): People;
  stop(): Promise<void>;
}

export interface WebhooksOptions {
  readonly bus: Bus;
  readonly view: ConfigView;
  readonly config: TierA;
  readonly configured: () => boolean;
  readonly logger: Logger;
  /** Who answers history questions (the read models' coverage). */
  readonly coverage: () => Coverage;
  /** `${VAR}` resolution: the secret store first, then the environment (default: environment only). */
  readonly resolve?: Resolver;
  /** Changes whenever the secret store does, so a stored secret is used from the next delivery on. */
  readonly secretsStamp?: () => number;
  /** Environment for the code-host app flow's locations (default: the process environment). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The integrations read model: `/integrations` reads its arrival counts. */
  readonly integrations: IntegrationsView;
  /** Run the integration actor and router here (default true). */
  readonly consumers?: boolean;
  /** The node's window of wakes on notice, shared with the native tracker's comment wakes. */
  readonly wakes?: RateWindow;
}

const envResolver: Resolver = (name) => process.env[name];

export async function startWebhooks(opts: WebhooksOptions): Promise<Webhooks> {
  const resolve = opts.resolve ?? envResolver;
  const keyring = keyringFrom(opts.config.secrets);
  const arrivals = new Arrivals({
    bus: opts.bus,
    nodeId: opts.config.node.id,
    logger: opts.logger.child({ component: 'arrivals' }),
  });
  const keySets = new Map<string, RelayKeySet>();
  // Trimmed: each is compared with a header value or read as a URL, neither of which carries outer
  // whitespace, so a value written with a trailing newline (an env file, `echo` into a secret) still works.
  const value = (name: string): string | null => {
    const v = resolve(name)?.trim();
    return v === undefined || v === '' ? null : v;
  };
  const extras = (): ExtraSecrets => ({
    monitorToken: value('SVC_MONITOR_WEBHOOK_TOKEN'),
    wikiToken: value('SVC_WIKI_WEBHOOK_TOKEN'),
    relayKeySetUrl: value('SVC_RELAY_JWKS_URL'),
  });

  // Rebuilt when the active revision or the secret store changes (a write answers once this node sees it,
  // so the next delivery uses it), and at most once a second otherwise: the environment has no stamp.
  const stampOf = opts.secretsStamp ?? (() => 0);
  let cached: {
    id: string | null;
    stamp: number;
    at: number;
    settings: WebhookSettings;
    people: People;
    rateLimit: number;
    /** The resolved tracker-a and wiki blocks: whose credential the shared account is asked with. */
    sites: Partial<Record<SiteIntegration, Readonly<Record<string, unknown>>>>;
  } = {
    id: null,
    stamp: stampOf(),
    at: 0,
    settings: unconfiguredSettings(extras()),
    people: peopleFrom(null),
    rateLimit: 0,
    sites: {},
  };
  const current = (): typeof cached => {
    // Read on every delivery: the id decides, the record is built only when it changed or the second passed.
    const id = activeRevisionId(opts.view.state);
    const stamp = stampOf();
    const now = performance.now();
    if (id === cached.id && stamp === cached.stamp && now - cached.at < 1000) return cached;
    const active = activeRevision(opts.view.state);
    if (active === null)
      return (cached = {
        id,
        stamp,
        at: now,
        settings: unconfiguredSettings(extras()),
        people: peopleFrom(null),
        rateLimit: 0,
        sites: {},
      });
    try {
      // Typed before `${VAR}` resolution (the stored revision was validated as written); resolution
      // replaces strings with strings, so the shape holds. Keys a newer build wrote are left out.
      const opened = Company.parse(
        withoutUnknownKeys(openDocument(keyring, active.payload, active.revision_id), knownKeysAt),
      );
      const document = substituteDeep(opened, resolve) as Company;
      cached = {
        id,
        stamp,
        at: now,
        settings: webhookSettingsFrom(id ?? '', document, extras()),
        people: peopleFrom(document),
        rateLimit: document.notification_rate_limit ?? 0,
        sites: {
          ...(document.integrations?.tracker_a ? { 'tracker-a': document.integrations.tracker_a } : {}),
          ...(document.integrations?.wiki ? { wiki: document.integrations.wiki } : {}),
        },
      };
    } catch (error) {
      // The config subsystem refuses to boot on an unopenable active revision; keep the last good view.
      opts.logger.error({ event: 'webhook_settings_unreadable', err: error }, 'webhook_settings_unreadable');
    }
    return cached;
  };

  const appFlow = codehostAppFlow({
    bus: opts.bus,
    view: opts.view,
    config: opts.config,
    ...(opts.env ? { env: opts.env } : {}),
  });
  // Stored and not yet routed, fleet-wide: what the durables of routing (one per fleet) have not acknowledged.
  const routing: ReadonlyArray<readonly [string, string]> = [
    [Streams.Webhooks, 'integration'],
    [Streams.WebhooksWiki, 'integration'],
  ];
  const backlog = new RoutingBacklog({
    ...defaultBacklog,
    pending: async () => {
      const counts = await Promise.all(routing.map(([s, d]) => opts.bus.consumerPending(s, d)));
      return counts.reduce<number>((sum, n) => sum + (n ?? 0), 0);
    },
    logger: opts.logger.child({ component: 'webhooks' }),
  });
  // Routing on this node takes the bodies its receivers parsed (a node without routing keeps none).
  const parsed = opts.consumers !== false ? new ParsedBodies() : undefined;
  const deps = {
    ...(appFlow ? { appInstallation: appFlow.installation.bind(appFlow) } : {}),
    ...(parsed ? { parsed } : {}),
    bus: opts.bus,
    settings: () => current().settings,
    configured: opts.configured,
    arrivals,
    backlog,
    relayKeys: (url: string): RelayKeySet => {
      let set = keySets.get(url);
      if (!set) keySets.set(url, (set = relayKeySet(url)));
      return set;
    },
  };
  const subs: Subscription[] = [];
  if (opts.consumers !== false) {
    const people = (): People => current().people;
    const cloudApiUrl = (opts.env ?? process.env)['SVC_CLOUD_SITE_API_URL'];
    const accounts = new SharedAccounts({
      logger: opts.logger.child({ component: 'integration' }),
      ...(cloudApiUrl ? { cloudApiUrl } : {}),
    });
    const router = await openRouter({
      bus: opts.bus,
      people,
      rateLimit: () => current().rateLimit,
      ...(opts.wakes ? { wakes: opts.wakes } : {}),
      nodeId: opts.config.node.id,
      logger: opts.logger.child({ component: 'router' }),
    });
    subs.push(
      await drainRetiredNotify({ bus: opts.bus, router, logger: opts.logger.child({ component: 'router' }) }),
    );
    subs.push(
      await startIntegrationHost({
        bus: opts.bus,
        people,
        router,
        nodeId: opts.config.node.id,
        ...(parsed ? { parsed } : {}),
        sharedAccount: (integration) => accounts.ids(integration, current().sites[integration]),
        logger: opts.logger.child({ component: 'integration' }),
      }),
    );
  }
  const questions = integrationsQuestions({
    settings: deps.settings,
    arrivals: (surface) => opts.integrations.arrivals(surface),
    // Read-your-writes: what this node counted is appended and folded before it answers.
    sync: async () => {
      await arrivals.flush();
      await opts.integrations.caughtUp();
    },
    nodeId: opts.config.node.id,
    publicBaseUrl: () => value('SVC_PUBLIC_BASE_URL'),
    publicListener: opts.config.api.public !== undefined,
    coverage: opts.coverage,
  });
  return {
    routes: (auth, asked = questions) => [
      ...webhookRoutes(deps),
      ...integrationsRoutes(asked),
      ...landingRoutes({
        configured: opts.configured,
        settings: deps.settings,
        auth,
        publicBaseUrl: () => value('SVC_PUBLIC_BASE_URL'),
        keyring: keyring !== null,
        ...(appFlow ? { appFlow } : {}),
      }),
    ],
    questions,
    settings: deps.settings,
    people: () => current().people,
    async stop() {
      await arrivals.flush();
      await Promise.all(subs.map((s) => s.stop()));
    },
  };
}
