/**
 * The setup routes of one node and the integration actors behind them: `${VAR}` look-ups (store, then
 * environment), sealing through the secret store's commands, config writes through the config writer,
 * provisioning passes through the actors' commands (`svc.cmd.integration.*`, served on every node),
 * and the passes every node recorded, read from the integrations read model.
 */
import type { Logger } from 'pino';
import { createPassHost, startIntegrationActors, type IntegrationActors } from '../actors/index.js';
import { BusError, sendCommand, type Bus, keyringFrom, openDocument } from '../bus/index.js';
import {
  ApiError,
  findingsReader,
  setupPassSource,
  setupQuestions,
  setupRoutes,
  type Actor,
  type AuthSettings,
  type Question,
  type RouteDef,
  type SetupConfigDeps,
  type SetupRouteDeps,
} from '../http/index.js';
import {
  activeRevision,
  getPassRun,
  listPassRuns,
  secretRecord,
  storeResolver,
} from '../projections/index.js';
import {
  Commands,
  setupKinds,
  type LookupAnswer,
  type SecretDelete,
  type SecretPut,
  type SecretReply,
  type SetupFinding,
  type TierA,
} from '../schema/index.js';
import type { Configuration } from './config-wiring.js';
import type { IntegrationsView } from './integrations-view.js';
import type { Secrets } from './secrets-wiring.js';

/** Where the public base URL is read from (ops/setup.md): a variable in the secret store or environment. */
export const PUBLIC_BASE_URL_VARIABLE = 'SVC_PUBLIC_BASE_URL';

export interface Setup {
  routes(auth: AuthSettings): RouteDef[];
  /** The `setup_integrations` question (the dashboard's integrations room asks it over its socket). */
  questions(auth: AuthSettings): ReadonlyMap<string, Question>;
  readonly actors: IntegrationActors;
  /** The reconcile findings as last read (every 5 s, the alarms' pulse): what each enabled integration lacks. */
  findings(): readonly SetupFinding[];
  stop(): Promise<void>;
}

/** How often the findings are read again: the alarms look every 5 s too. */
const FINDINGS_EVERY_MS = 5_000;

export async function startSetup(opts: {
  bus: Bus;
  config: TierA;
  configuration: Configuration;
  secrets: Secrets;
  integrations: IntegrationsView;
  logger: Logger;
  env?: Readonly<Record<string, string | undefined>>;
}): Promise<Setup> {
  const { bus, config, configuration, secrets } = opts;
  const env = opts.env ?? process.env;
  const keyring = keyringFrom(config.secrets);
  const store = storeResolver(() => secrets.view.state, secrets.keyring);

  /** Sends one secrets command; a refusal becomes its catalogued error; resolves once this node's view has it. */
  async function command(
    ...[cmd, body]: [typeof Commands.secrets.put, SecretPut] | [typeof Commands.secrets.delete, SecretDelete]
  ): Promise<Extract<SecretReply, { outcome: 'ok' }>> {
    const reply = await sendCommand(bus, cmd, body);
    if (reply.outcome === 'refused') throw new ApiError(reply.error, { detail: reply.detail });
    if (reply.removed !== false)
      await secrets.view.until((s) => (s.entries.get(body.name)?.revision ?? 0) >= reply.revision, 5_000);
    return reply;
  }
  // The caller as the guard saw them, as PUT /secrets records it.
  const sealed = (name: string, value: string, actor: Actor): SecretPut => ({
    name,
    value_b64: Buffer.from(value, 'utf8').toString('base64'),
    source: 'setup',
    actor,
  });

  const shared: SetupConfigDeps = {
    state: () => configuration.view.state,
    openPayload: (record) => openDocument(keyring, record.payload, record.revision_id),
    untilEpoch: (epoch, timeoutMs) =>
      configuration.view.until(
        (state) => (state.active?.epoch ?? 0) >= epoch && activeRevision(state) !== null,
        timeoutMs,
      ),
    bus,
    lookup: (name) => {
      const stored = store(name);
      const answer: LookupAnswer | null =
        stored !== undefined
          ? { source: 'store', value: stored }
          : env[name] !== undefined
            ? { source: 'environment', value: env[name] }
            : null;
      return Promise.resolve(answer);
    },
    unreadableKey: (name) => {
      // The store holds it and this node has a keyring, yet it does not open: sealed under a key not held here.
      const record = secretRecord(secrets.view.state, name);
      return record !== null && secrets.keyring !== null && store(name) === undefined ? record.key_id : null;
    },
    seal: async (name, value, actor) => {
      try {
        return (await command(Commands.secrets.put, sealed(name, value, actor))).revision;
      } catch (error) {
        // Unanswered, yet this node reads the value under the name: the seal landed, at that revision (so a
        // put-back stays a compare-and-set on it). Unseen, it may still land: the caller names it unknown.
        const entry = secrets.view.state.entries.get(name);
        if (error instanceof BusError && entry?.record && store(name) === value) return entry.revision;
        throw error;
      }
    },
    unseal: async (name, actor) => (await command(Commands.secrets.delete, { name, actor })).removed ?? true,
    putBack: async (name, before, actor, revision) => {
      const reply =
        before === null
          ? await command(Commands.secrets.delete, { name, actor, if_revision: revision })
          : await command(Commands.secrets.put, { ...sealed(name, before, actor), if_revision: revision });
      return reply.superseded !== true;
    },
    publicBaseReference: PUBLIC_BASE_URL_VARIABLE,
    ...(env['SVC_CODEHOST_A_WEB_URL'] ? { codehostAWebUrl: env['SVC_CODEHOST_A_WEB_URL'] } : {}),
  };
  const deps = (auth: AuthSettings): SetupRouteDeps => ({
    ...shared,
    auth,
    nodeId: config.node.id,
    hasKeyring: keyring !== null,
    command: (verb, body) => sendCommand(bus, Commands.integration[verb], body),
    runs: {
      list: (kind, page) => listPassRuns(opts.integrations.state(), kind, page),
      get: (kind, id) => getPassRun(opts.integrations.state(), kind, id),
      sync: () => opts.integrations.caughtUp(),
    },
  });

  const actors = await startIntegrationActors({
    bus,
    nodeId: config.node.id,
    logger: opts.logger.child({ component: 'integration.actors' }),
    kinds: setupKinds,
    records: opts.integrations,
    source: setupPassSource(shared, opts.logger.child({ component: 'setup.seat_tokens' })),
    passes: createPassHost({
      nodeId: config.node.id,
      logger: opts.logger.child({ component: 'setup.passes' }),
      ...(env['SVC_CLOUD_SITE_API_URL'] ? { cloudApiUrl: env['SVC_CLOUD_SITE_API_URL'] } : {}),
    }),
    keyring: keyring !== null,
  });
  const readFindings = findingsReader(shared);
  let findings: readonly SetupFinding[] = [];
  const refresh = (): void => {
    readFindings().then(
      (read) => void (findings = read),
      (err: unknown) => opts.logger.warn({ err, event: 'setup_findings_unread' }, 'setup_findings_unread'),
    );
  };
  refresh();
  const timer = setInterval(refresh, FINDINGS_EVERY_MS);
  timer.unref();
  return {
    routes: (auth) => setupRoutes(deps(auth)),
    questions: (auth) => setupQuestions(deps(auth)),
    actors,
    findings: () => findings,
    stop: () => {
      clearInterval(timer);
      return actors.stop();
    },
  };
}
