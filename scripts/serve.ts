/**
 * `svc serve`: wires one node together from its Tier A configuration.
 *   1. open the bus engine it names and ensure the stream catalogue
 *   2. start the node actor (booting → unconfigured until a revision is applied)
 *   3. start the subsystems a config apply drives (secrets, providers, tool servers, schedules, read
 *      models), follow the configuration and apply what is active, then the webhook pipeline
 *      (scripts/subsystems-wiring.ts)
 *   4. replay the events projection and open the live stream (scripts/events-wiring.ts)
 *   5. seed the read models and register their sections and questions
 *   6. bind the gateway (api.port, and api.public.port when set)
 * and drains in the spec's order when told to stop.
 */
import type { Logger } from 'pino';
import { refuseRunningDuplicate, type NodeHost } from '../actors/index.js';
import { ensureCatalogue, openBus, type Bus } from '../bus/index.js';
import { bootNode } from './node-wiring.js';
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
  type RouteDef,
} from '../http/index.js';
import { NodeRole, type TierA } from '../schema/index.js';
import type { Configuration } from './config-wiring.js';
import { accessRoutesFor } from './access-wiring.js';
import type { Secrets } from './secrets-wiring.js';
import type { ToolServers } from './toolservers-wiring.js';
import { requestSpans, startTracing } from './tracing.js';
import { startEvents, type EventsSubsystem } from './events-wiring.js';
import { startBackups } from './backup-wiring.js';
import { createNodeMetrics } from './metrics-wiring.js';
import { sandboxIsolation, startSandboxes } from './sandbox-wiring.js';
import { startSubsystems } from './subsystems-wiring.js';
import { drainStepMs, drainSteps } from './drain-steps.js';

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
  /**
   * Drains once (later calls return the same promise): probes turn, running turns settle, listeners close,
   * the bus closes.
   */
  drain(): Promise<void>;
}

export async function serve(config: TierA, opts: { logger: Logger; version: string }): Promise<RunningNode> {
  const { logger } = opts;
  const queue = config.providers.queue;
  const ingress = config.node.roles.includes(NodeRole.Ingress);
  // Spec keys no subsystem of this release reads: said once at start, never accepted in silence (no value logged).
  const unread = [
    ...(config.providers.database ? ['providers.database.dsn'] : []),
    ...(config.providers.knowledge ? ['providers.knowledge.type'] : []),
  ];
  for (const key of unread)
    logger.warn({ event: 'tier_a_not_applied', key }, `${key} is set, but nothing in this release reads it`);

  // 1. bus, timed for `GET /metrics`: every subsystem gets the instrumented one
  const metrics = createNodeMetrics({ nodeId: config.node.id });
  // The node's own spans (ops/tracing.md): the no-op tracer unless an OTLP endpoint is set.
  const tracing = await startTracing({
    env: process.env,
    logger: logger.child({ component: 'tracing' }),
    version: opts.version,
    nodeId: config.node.id,
    onSpansDropped: (count) => metrics.spansDropped(count),
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
  // Asserted wide: set from startSubsystems' callback, which narrowing cannot see, and read in the catch.
  let tools = null as ToolServers | null;
  try {
    const catalogue = await ensureCatalogue(bus);
    // A running process of this node id refuses this one before it boots, applies or writes anything.
    await refuseRunningDuplicate({ bus, coord: catalogue.coord, nodeId: config.node.id });

    // 2. node actor, from its own apply history
    const { node, startedAt } = await bootNode({ bus, config, catalogue, version: opts.version, logger });

    // 3. subsystems, then configuration: apply what is active before binding
    const {
      secrets,
      providers,
      auth,
      knowledge,
      skills,
      operator,
      toolServers,
      schedules,
      placement,
      fleet,
      readModels,
      seats,
      configuration,
      checkLag,
      lagSeconds,
      checkpoints,
      integrations,
      setup,
      work,
      webhooks,
      alarms,
      transports,
    } = await startSubsystems({
      bus,
      catalogue,
      node,
      startedAt,
      config,
      version: opts.version,
      logger,
      tracer: tracing.tracer,
      toolServersStarted: (started) => {
        tools = started;
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
      stallLagSeconds: lagSeconds() > 0 ? lagSeconds() : null,
    });
    const events: EventsSubsystem = await startEvents({
      bus,
      node: config.node.id,
      historySeconds: catalogue.eventHistorySeconds,
      checkpoints,
      health: () => node.health(liveFacts()),
      logger,
      // The seat filter of the event reads takes an `/agents` row's agent_id: resolved here, at each question.
      seats: () => readModels.models.companyModel.seats,
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
    events.sections.register(fleet.section);
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
    // The facts are whole now: a standing alarm taken up at start that ended meanwhile is cleared.
    alarms.settle();

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
      isolation: sandboxIsolation(config),
      tools: toolServers,
      logger,
      reconcile: (runs) => readModels.models.reconcileSandboxes(runs),
      roster: () => fleet.roster(),
    });

    // 6. gateway
    if (config.api.port > 0) {
      // Without ingress only a seats node serves the tool bridge (spec): its runs' tools run there.
      const bridgeOnly = (): RouteDef[] =>
        config.node.roles.includes(NodeRole.Seats) ? sandboxes.routes(opts.version) : [];
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
              ...secrets.routes(auth),
              ...toolServers.routes(events.questions),
              ...schedules.routes(),
              ...seats.routes((id) => readModels.models.agentHandle(id)),
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
              ...readModels.routes(events.questions),
              ...queryRoutes(events.questions),
              ...dashboardRoutes(loadDashboardAssets()),
              ...(work?.routes(auth) ?? []),
              ...nativeBackendRoutes({
                tracker: config.tracker.backend,
                knowledge: config.knowledge.backend,
                ...(knowledge ? { knowledgeRoutes: knowledge.routes } : {}),
              }),
            ]
          : bridgeOnly(),
        stream: events.hub,
        probes: {
          health: () => node.health(liveFacts()),
          ready: () => node.ready(liveFacts()),
          draining: () => node.draining(),
          configured: () => node.configured(),
          // A cached answer never outlives a seat this node stopped holding (a peer may hold it already), nor
          // what `/health` status and `/ready` both read: the bus link, phase and posture (the probes agree).
          fresh: () => {
            const view = node.view();
            const held = (seats.runtime?.seats() ?? []).join(',');
            return `${held}|${bus.linked()}|${view.phase}|${view.configured}|${view.posture}`;
          },
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
        clearInterval(reconcile);
        // First: no new wake; running turns get their grace to finish, then are handed over. Nothing their
        // tools use (tracker, knowledge, skills, tool servers, transports, read models) stops before.
        const steps = drainSteps(logger);
        const graceMs = config.node.turn_grace_seconds * 1000;
        const turnsSettled = steps.run('seats.drain', () => seats.drain(graceMs), graceMs + drainStepMs);
        // Alongside: an apply in progress is work in progress too and gets the same grace (the drain's one
        // configured bound, never a second) to end and be recorded before anything it applies to stops; past
        // it the apply is logged as cut (no failed drain), and the next start applies it.
        const applyEnded = steps.run(
          'config apply',
          () => configuration.finishApply(graceMs),
          graceMs + drainStepMs,
        );
        // Alongside: the public listener closes now, api.port once the turns settled (probes answer 503).
        // Bounded by the listeners' own cuts: 5 s each, and a second for the live stream's sockets.
        const listeners = steps.run(
          'gateway.drain',
          () => gateway?.drain(turnsSettled),
          graceMs + 4 * drainStepMs,
        );
        await turnsSettled;
        await listeners;
        await applyEnded;
        // Each step from here on talks to the bus and is bounded (ops/deploy.md): an unreachable bus
        // costs seconds, not the whole stop.
        await steps.run('alarms', () => alarms.stop());
        await steps.run('transports', () => transports.stop());
        await steps.run('scatter', () => scatter.stop());
        await steps.run('webhooks', () => webhooks.stop());
        await steps.run('setup', () => setup.stop());
        await steps.run('integrations', () => integrations.stop());
        await steps.run('work', () => work?.stop());
        await steps.run('read models', () => readModels.stop());
        await steps.run('skills', () => skills.stop());
        await steps.run('knowledge', () => knowledge?.stop());
        await steps.run('events', () => events.stop());
        await steps.run('checkpoints', () => checkpoints?.close());
        await steps.run('configuration', () => configuration.stop());
        await steps.run('schedules', () => schedules.stop());
        await steps.run('seats', () => seats.stop());
        await steps.run('sandboxes', () => sandboxes.stop());
        await steps.run('fleet', () => fleet.stop());
        await steps.run('placement', () => placement.stop());
        await steps.run('tool servers', () => toolServers.stop());
        await steps.run('secrets', () => secrets.stop());
        await steps.run('bus', () => bus.close());
        await steps.run('tracing', () => tracing.shutdown());
        node.send({ type: 'node.stopped' });
        steps.finish();
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
