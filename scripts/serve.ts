/**
 * `svc serve`: wires one node together from its Tier A configuration.
 *   1. open the bus engine it names and ensure the stream catalogue
 *   2. start the node actor (booting → unconfigured until a revision is applied)
 *   3. start the subsystems a config apply drives (secrets, providers, tool servers, schedules, read
 *      models), follow the configuration and apply what is active, then the webhook pipeline
 *   4. replay the events projection and open the live stream (scripts/events-wiring.ts)
 *   5. seed the read models and register their sections and questions
 *   6. bind the gateway (api.port, and api.public.port when set)
 * and drains in the spec's order when told to stop.
 */
import type { Logger } from 'pino';
import {
  builtinAsServiceTool,
  createLagWatch,
  createMemoryStore,
  startAlarms,
  watchPlacement,
  workTools,
  type NodeHost,
  type WorkAccess,
} from '../actors/index.js';
import { ensureCatalogue, openBus, type Bus } from '../bus/index.js';
import { authSettingsOf, bootNode } from './node-wiring.js';
import {
  dashboardRoutes,
  fleetMerges,
  loadDashboardAssets,
  metricsRoutes,
  nativeBackendQuestions,
  nativeBackendRoutes,
  queryRoutes,
  startGateway,
  type Gateway,
} from '../http/index.js';
import { NodeRole, type TierA } from '../schema/index.js';
import { startConfiguration, type Configuration } from './config-wiring.js';
import { accessRoutesFor } from './access-wiring.js';
import { startSecrets, type Secrets } from './secrets-wiring.js';
import { startProviders } from './providers-wiring.js';
import { startToolServers, type ToolServers } from './toolservers-wiring.js';
import { startSchedules } from './schedules-wiring.js';
import { startSeats } from './seats-wiring.js';
import { requestSpans, startTracing } from './tracing.js';
import { startSetup } from './setup-wiring.js';
import { startWebhooks } from './webhooks-wiring.js';
import { followIntegrations } from './integrations-view.js';
import { createReadModels } from './readmodels-wiring.js';
import { startEvents, type EventsSubsystem } from './events-wiring.js';
import { startFleet } from './fleet-wiring.js';
import { startBackups } from './backup-wiring.js';
import { createNodeMetrics } from './metrics-wiring.js';
import { startWork } from './work-wiring.js';
import { startSandboxes } from './sandbox-wiring.js';
import { activeChart, startKnowledge } from './pages-wiring.js';
import { operatorSurface } from './operator-wiring.js';
import { openCheckpoints, type ActiveChart } from '../projections/index.js';

const reconcileIntervalMs = 15_000;

export interface RunningNode {
  readonly bus: Bus;
  readonly node: NodeHost;
  readonly configuration: Configuration;
  /** The secret store and the `${VAR}` resolver (store, then environment). */
  readonly secrets: Secrets;
  /** Tool servers, builtin tools and the tool router the turn engine calls. */
  readonly tools: ToolServers;
  readonly events: EventsSubsystem;
  /** Null when `api.port` is 0 (binds nothing). */
  readonly gateway: Gateway | null;
  /** Drains once (later calls return the same promise): probes turn, listeners close, the bus closes. */
  drain(): Promise<void>;
}

export async function serve(config: TierA, opts: { logger: Logger; version: string }): Promise<RunningNode> {
  const { logger } = opts;
  const queue = config.providers.queue;
  const ingress = config.node.roles.includes(NodeRole.Ingress);

  // 1. bus, timed for `GET /metrics`: every subsystem gets the instrumented one
  const metrics = createNodeMetrics({ nodeId: config.node.id });
  // The node's own spans (ops/tracing.md): the no-op tracer unless an OTLP endpoint is set.
  const tracing = startTracing({
    env: process.env,
    logger: logger.child({ component: 'tracing' }),
    version: opts.version,
    nodeId: config.node.id,
  });
  const rawBus = await openBus({
    type: queue.type,
    url: queue.url,
    authToken: queue.auth_token,
    replicas: queue.replicas,
    storeDir: config.stream.store_dir,
    logger: logger.child({ component: 'bus' }),
  });
  const bus = metrics.instrument(rawBus);
  let gateway: Gateway | null = null;
  let tools: ToolServers | null = null;
  try {
    const catalogue = await ensureCatalogue(bus);

    // 2. node actor, from its own apply history
    const { node, startedAt } = await bootNode({ bus, config, catalogue, version: opts.version, logger });

    // 3. subsystems, then configuration: apply what is active before binding
    const secrets = await startSecrets({ bus, bucket: catalogue.secrets, config, logger });
    const providers = startProviders({ bus, nodeId: config.node.id, logger, resolve: secrets.resolve });
    const auth = authSettingsOf(config);
    // The native knowledge base (ops/knowledge-base.md): before the tools, so seats get its tools; its
    // containers come from the active document, read once the configuration runs.
    let chart: ActiveChart = () => null;
    const knowledge =
      config.knowledge.backend === 'native'
        ? await startKnowledge({ bus, chart: () => chart(), auth, resolve: secrets.resolve, logger })
        : null;
    const serviceTools = [...(knowledge?.tools ?? [])];
    // Bound below once the tracker runs: it reads the configuration the tool servers start before.
    let workAccess: WorkAccess | null = null;
    const operator = operatorSurface({
      tools: [
        ...serviceTools,
        ...(config.tracker.backend === 'native'
          ? workTools({ work: () => workAccess }).map(builtinAsServiceTool)
          : []),
      ],
      auth,
      chart: () => chart(),
      resolve: secrets.resolve,
    });
    // The seats' personal memory: written by `memory_remember`, read by `memory_recall` and the memory view.
    const memory = createMemoryStore({ kv: catalogue.memory });
    // Per-seat tool servers run where their seat runs: bound to the seats runtime below.
    let holdsSeat: (handle: string) => boolean = () => false;
    const toolServers = startToolServers({
      bus,
      nodeId: config.node.id,
      logger: logger.child({ component: 'toolservers' }),
      resolve: secrets.resolve,
      memory,
      runsSeat: (handle) => holdsSeat(handle),
      ...(config.tracker.backend === 'native' ? { work: () => workAccess } : {}),
      serviceTools,
    });
    tools = toolServers;
    const schedules = await startSchedules({ bus, coord: catalogue.coord, nodeId: config.node.id, logger });
    // The fleet's seat leases: a seat no node holds reads stopped / unplaced.
    const placement = await watchPlacement(catalogue.coord);
    // This node's presence lease and the fleet view behind /fleet and the probes' `nodes`.
    const fleet = await startFleet({
      bus,
      coord: catalogue.coord,
      config,
      version: opts.version,
      startedAt,
      appliedEpoch: () => node.view().appliedEpoch,
      logger,
    });
    const readModels = createReadModels({
      nodeId: config.node.id,
      logger: logger.child({ component: 'readmodels' }),
      tools: () => toolServers.catalogue(),
      // This node's own leases first: they are known before the watch delivers them.
      placed: (handle) => holdsSeat(handle) || placement.placed(handle),
      memoryStore: memory,
    });
    // A server that starts, stops or announces new tools changes the catalogue: re-send `tools`.
    toolServers.manager.onToolsChanged(() => readModels.models.toolsChanged());
    const seats = startSeats({
      bus,
      coord: catalogue.coord,
      turnsDone: catalogue.turnsDone,
      nodeId: config.node.id,
      logger,
      providers,
      tools: toolServers,
      runsSeats: config.node.roles.includes(NodeRole.Seats),
      lease: { ttlMs: config.node.seat_lease_seconds * 1000 },
      tracer: tracing.tracer,
    });
    holdsSeat = (handle) => seats.runtime?.holds(handle) ?? false;
    const configuration = await startConfiguration({
      bus,
      coord: catalogue.coord,
      node,
      config,
      logger,
      resolve: secrets.resolve,
      // Seats first: the agent rows the read models push during the apply see the leases just taken.
      subsystems: [
        ...seats.subsystems,
        readModels.applier,
        providers,
        toolServers.subsystem,
        schedules.applier,
        ...seats.last,
      ],
    });
    // Posture lag: the revision table says which peer has the active epoch.
    const lag = createLagWatch({
      peerHas: (epoch) => configuration.revisions.peerApplied(epoch, config.node.id),
    });
    let lagSeconds = 0;
    const checkLag = (): void => {
      const state = lag.check(configuration.view.state.active?.epoch ?? 0, node.view().appliedEpoch);
      lagSeconds = state.lagSeconds;
      if (state.lagged) node.send({ type: 'node.lagged' });
    };
    await configuration.applyActive();
    chart = activeChart(configuration, secrets);
    // Integration records (arrivals, passes): read by `/integrations`, the setup routes and the actors.
    // The node's projection checkpoints: one store for every projection it runs, closed at the drain's end.
    const checkpoints = config.stream.store_dir ? openCheckpoints(config.stream.store_dir) : undefined;
    const integrations = await followIntegrations({
      bus,
      checkpoints,
      logger: logger.child({ component: 'projection.integrations' }),
    });
    // The integration actors (one per setup kind, serving svc.cmd.integration.*) and the setup routes.
    const setup = await startSetup({ bus, config, configuration, secrets, integrations, logger });
    // The native work tracker (tracker.backend: native): its projection, writer and routes.
    const work = await startWork({
      bus,
      config,
      configuration,
      secrets,
      logger,
      roster: () => fleet.roster(),
    });
    workAccess = work?.access ?? null;
    const webhooks = await startWebhooks({
      bus,
      integrations,
      view: configuration.view,
      config,
      logger,
      resolve: secrets.resolve,
      configured: () => node.configured(),
      coverage: () => readModels.models.coverage(),
    });

    // Alarms (ops/fleet.md "Alarms"): evaluated every health pulse and at once when the bus link changes.
    const alarms = startAlarms({
      bus,
      nodeId: config.node.id,
      logger,
      facts: () => {
        const view = node.view();
        return {
          busLinked: bus.linked(),
          posture: view.phase === 'serving' ? view.posture : null,
          lagSeconds,
          budgetRefused: readModels.models.budgets().refused,
          toolServers: toolServers.manager.status(),
          keylessProviders: Object.values(providers.snapshot())
            .filter(
              (entry) => entry.keys.length > 0 && entry.keys.every((key) => key.reason === 'unresolved'),
            )
            .map((entry) => ({ provider: entry.provider, unresolved: entry.keys.map((key) => key.ref) })),
        };
      },
    });

    // 4. events: replay the event history and open the live stream before the listener binds
    const inFlight = (): number => gateway?.inFlight() ?? 0;
    const liveFacts = () => ({
      inFlight: inFlight(),
      brokerLinked: bus.linked(),
      alarms: alarms.summary(),
      seats: (seats.runtime?.seats() ?? []).sort(),
      unprovenSeconds: seats.runtime?.unproven() ?? {},
      clients: events.hub.count(),
      seededFrom: events.seededFrom(),
      ...fleet.facts(),
      stallLagSeconds: lagSeconds > 0 ? lagSeconds : null,
    });
    const events: EventsSubsystem = await startEvents({
      bus,
      node: config.node.id,
      historySeconds: catalogue.eventHistorySeconds,
      checkpoints,
      health: () => node.health(liveFacts()),
      logger,
    });
    events.addQuestions(configuration.questions);
    events.addQuestions(toolServers.questions);
    events.addQuestions(schedules.questions);
    events.addQuestions(webhooks.questions);
    events.addQuestions(fleet.questions);
    events.addQuestions(setup.questions(auth));
    // The native tracker's and knowledge base's reads, for the dashboard's board and pages rooms.
    events.addQuestions(
      nativeBackendQuestions({
        tracker: config.tracker.backend,
        knowledge: config.knowledge.backend,
        ...(work ? { workRoutes: work.routes(auth) } : {}),
        ...(knowledge ? { knowledgeRoutes: knowledge.routes } : {}),
      }),
    );
    events.sections.register(schedules.section);
    // 5. read models: seeded before the listener binds; their sections and questions join the registry
    await readModels.start({ bus, view: configuration.view, checkpoints: events.checkpoints });
    for (const section of readModels.sections()) events.sections.register(section);
    events.addQuestions(readModels.questions);
    // History questions and per-node facts are answered by every live node and merged (http/scatter.ts).
    const scatter = events.scatter({
      bus,
      node: config.node.id,
      roster: () => fleet.roster(),
      logger,
      merges: fleetMerges,
    });
    // The seed read, before the listener binds: health's `seeded_from` names who answered it.
    await events.seed(logger.child({ component: 'seed' }));

    // Backups: records of every request in svc_backups; a run this node left unfinished is marked failed.
    const backups = await startBackups({
      bus,
      nodeId: config.node.id,
      version: opts.version,
      storeDir: config.stream.store_dir,
      logger: logger.child({ component: 'backups' }),
    });

    // Detached coding runs: their records, the supervisor (seats nodes), the reconcile and the token routes.
    const sandboxes = await startSandboxes({
      bus,
      nodeId: config.node.id,
      storeDir: config.stream.store_dir ?? null,
      runsSeats: config.node.roles.includes(NodeRole.Seats),
      tools: toolServers,
      logger,
      reconcile: (runs) => readModels.models.reconcileSandboxes(runs),
    });

    // 6. gateway
    if (config.api.port > 0) {
      gateway = await startGateway({
        host: config.api.host,
        port: config.api.port,
        ...(config.api.public ? { publicPort: config.api.public.port } : {}),
        ingress,
        auth,
        routes: ingress
          ? [
              ...sandboxes.routes(opts.version),
              ...configuration.routes(auth),
              ...secrets.routes(),
              ...toolServers.routes(events.questions),
              ...schedules.routes(),
              ...seats.routes(),
              ...fleet.routes(),
              ...metricsRoutes(metrics),
              ...accessRoutesFor({
                auth,
                configuration,
                secrets,
                credentialPool: () => providers.snapshot(),
                operatorActs: operator.acts,
              }),
              ...operator.routes,
              ...setup.routes(auth),
              ...webhooks.routes(auth, events.questions),
              ...events.routes(),
              ...backups.routes(),
              ...readModels.routes(),
              ...queryRoutes(events.questions),
              ...dashboardRoutes(loadDashboardAssets()),
              ...(work?.routes(auth) ?? []),
              ...nativeBackendRoutes({
                tracker: config.tracker.backend,
                knowledge: config.knowledge.backend,
                ...(knowledge ? { knowledgeRoutes: knowledge.routes } : {}),
              }),
            ]
          : sandboxes.routes(opts.version),
        stream: events.hub,
        probes: {
          health: () => node.health(liveFacts()),
          ready: () => node.ready(liveFacts()),
          draining: () => node.draining(),
          configured: () => node.configured(),
        },
        logger: logger.child({ component: 'http' }),
        observer: requestSpans(tracing.tracer, metrics.requests),
      });
    }
    logger.info(
      {
        api_port: gateway?.port ?? 0,
        public_port: gateway?.publicPort ?? null,
        queue: queue.type,
        roles: config.node.roles,
      },
      'node serving',
    );

    // The reconcile tick (spec: every 15 s) re-applies a missed activation; it also keeps a node
    // without listeners (api.port 0) alive until it is told to stop.
    // On every tick the node also checks its lag on the fleet epoch (a node behind a peer 45 s is shed).
    const reconcile = setInterval(
      () => void configuration.applyActive().then(checkLag, checkLag),
      reconcileIntervalMs,
    );

    let draining: Promise<void> | null = null;
    const drain = (): Promise<void> =>
      (draining ??= (async () => {
        logger.info('drain started');
        node.send({ type: 'node.drain' });
        // First, and alongside the listeners' drain: no new wake; running turns get their grace to finish.
        const turnsSettled = seats.drain(config.node.turn_grace_seconds * 1000);
        clearInterval(reconcile);
        await alarms.stop();
        await gateway?.drain();
        await scatter.stop();
        await webhooks.stop();
        await setup.stop();
        await integrations.stop();
        await work?.stop();
        await readModels.stop();
        await knowledge?.stop();
        await events.stop();
        checkpoints?.close();
        await configuration.stop();
        await schedules.stop();
        await turnsSettled;
        await seats.stop();
        await sandboxes.stop();
        await fleet.stop();
        await placement.stop();
        await toolServers.stop();
        await secrets.stop();
        await bus.close();
        await tracing.shutdown();
        node.send({ type: 'node.stopped' });
        logger.info('drain finished');
      })());
    return { bus, node, configuration, secrets, tools: toolServers, events, gateway, drain };
  } catch (error) {
    await gateway?.close();
    await tools?.stop();
    await bus.close();
    await tracing.shutdown();
    throw error;
  }
}
