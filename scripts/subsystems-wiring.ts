/**
 * Step 3 of `svc serve` (scripts/serve.ts): starts the subsystems a configuration apply drives (secrets,
 * providers, knowledge, tool servers, fleet, schedules, placement, read models, seats), follows the
 * configuration and applies what is active, then the integrations, setup, work tracker, webhook pipeline and
 * alarms. Nothing here binds a listener; serve.ts drains what this returns.
 */
import type { Logger } from 'pino';
import {
  alarmedPosture,
  builtinAsServiceTool,
  createLagWatch,
  createMemoryStore,
  RateWindow,
  startAlarms,
  startTransports,
  watchPlacement,
  workTools,
  type NodeHost,
  type WorkAccess,
} from '../actors/index.js';
import { Buckets, type Bus, type Catalogue } from '../bus/index.js';
import { NodeRole, type NodeAlarms, type TierA, type Tracer } from '../schema/index.js';
import { openCheckpoints, pageVectors, type ActiveChart } from '../projections/index.js';
import { authSettingsOf } from './node-wiring.js';
import { startConfiguration } from './config-wiring.js';
import { startSecrets } from './secrets-wiring.js';
import { startProviders } from './providers-wiring.js';
import { ledgerBudget, memoryEmbedder, pagesEmbedder, type BudgetCheck } from './embeddings-wiring.js';
import { startToolServers, type ToolServers } from './toolservers-wiring.js';
import { startSchedules } from './schedules-wiring.js';
import { startSeats } from './seats-wiring.js';
import { startSetup } from './setup-wiring.js';
import { startWebhooks } from './webhooks-wiring.js';
import { followIntegrations } from './integrations-view.js';
import { createReadModels } from './readmodels-wiring.js';
import { startFleet } from './fleet-wiring.js';
import { startWork } from './work-wiring.js';
import { activeChart, startKnowledge } from './pages-wiring.js';
import { startSkills } from './skills-wiring.js';
import { operatorSurface } from './operator-wiring.js';

/** Starts step 3 in order and returns every part the later steps, the routes and the drain use. */
export async function startSubsystems(opts: {
  readonly bus: Bus;
  readonly catalogue: Catalogue;
  readonly node: NodeHost;
  readonly startedAt: string;
  readonly config: TierA;
  readonly version: string;
  readonly logger: Logger;
  readonly tracer: Tracer;
  /** Called as soon as the tool servers run, so a later start-up failure can still stop them. */
  readonly toolServersStarted: (toolServers: ToolServers) => void;
}) {
  const { bus, catalogue, node, startedAt, config, logger } = opts;
  const secrets = await startSecrets({ bus, bucket: catalogue.secrets, config, logger });
  const providers = startProviders({ bus, nodeId: config.node.id, logger, resolve: secrets.resolve });
  const auth = authSettingsOf(config);
  // The native knowledge base (ops/knowledge-base.md): before the tools, so seats get its tools; its
  // containers come from the active document, read once the configuration runs.
  let chart: ActiveChart = () => null;
  // Embeddings calls name the seat they served from the active document, read again when its epoch moves.
  let activeEpoch = (): number => 0;
  // The token budgets an embeddings call is checked against: the seats runtime's count once it runs, or on
  // a node without the seats role the spend ledger's.
  let budgets = (): BudgetCheck | null => null;
  const embeddingsBinding = {
    providers,
    bus,
    nodeId: config.node.id,
    chart: () => chart(),
    epoch: () => activeEpoch(),
    budget: () => budgets(),
  };
  const knowledgeLog = logger.child({ component: 'pages' });
  const knowledge =
    config.knowledge.backend === 'native'
      ? await startKnowledge({
          bus,
          chart: () => chart(),
          auth,
          resolve: secrets.resolve,
          logger,
          // Search by meaning while the first applied document's `providers.embeddings` is usable; the
          // node holding the fill duty embeds the pages ahead of the searches.
          meaning: {
            vectors: pageVectors(catalogue.pageVectors),
            embedder: pagesEmbedder({ ...embeddingsBinding, logger: knowledgeLog }),
            logger: knowledgeLog,
          },
          fill: { coord: catalogue.coord, nodeId: config.node.id },
        })
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
  // Tool skills (ops/skills.md): synced once the configuration runs; the builtins read the bucket.
  const skills = await startSkills({
    bus,
    logger,
    chart: () => chart(),
    pages: () => knowledge?.service ?? null,
    ...(knowledge
      ? { onPagesChange: (listener: () => void) => knowledge.projection.onChange(listener) }
      : {}),
    resolve: secrets.resolve,
    epoch: () => activeEpoch(),
  });
  // The seats' personal memory: written by `memory_remember`, read by `memory_recall` and the memory view;
  // ranked by meaning when the first applied document's `providers.embeddings` is usable.
  const memoryLog = logger.child({ component: 'memory' });
  const memory = createMemoryStore({
    kv: catalogue.memory,
    embedder: memoryEmbedder({ ...embeddingsBinding, logger: memoryLog }),
    logger: memoryLog,
  });
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
    skills: skills.shelf,
  });
  opts.toolServersStarted(toolServers);
  // This node's presence lease and the fleet view behind /fleet and the probes' `nodes`.
  let announcedAlarms = (): NodeAlarms | null => null;
  const fleet = await startFleet({
    bus,
    coord: catalogue.coord,
    config,
    version: opts.version,
    startedAt,
    appliedEpoch: () => node.view().appliedEpoch,
    posture: () => node.view().posture,
    // The alarm host starts last (its facts read every subsystem): none announced until it has evaluated.
    alarms: () => announcedAlarms(),
    logger,
  });
  // A duplicate of this node id (another process writes its presence): no seat lease, no duty taken.
  const admitted = (): boolean => !fleet.facts().admissionWithheld;
  const schedules = await startSchedules({
    bus,
    coord: catalogue.coord,
    nodeId: config.node.id,
    logger,
    resolve: secrets.resolve,
    secret: secrets.secret,
    admitted,
    leaseTtlMs: config.node.seat_lease_seconds * 1000,
  });
  // The fleet's seat leases: a seat no node holds reads stopped / unplaced.
  const placement = await watchPlacement(catalogue.coord);
  const counterparty = await bus.kv({ name: Buckets.Counterparty, history: 1 });
  const readModels = createReadModels({
    nodeId: config.node.id,
    resolve: secrets.resolve,
    secret: secrets.secret,
    logger: logger.child({ component: 'readmodels' }),
    tools: () => toolServers.catalogue(),
    // This node's own leases first: they are known before the watch delivers them.
    placed: (handle) => holdsSeat(handle) || placement.placed(handle),
    memoryStore: memory,
    coord: catalogue.coord,
    counterparty,
    skills: skills.kv,
  });
  // A server that starts, stops or announces new tools changes the catalogue: re-send `tools`.
  toolServers.manager.onToolsChanged(() => readModels.models.toolsChanged());
  const seats = startSeats({
    bus,
    resolve: secrets.resolve,
    coord: catalogue.coord,
    turnsDone: catalogue.turnsDone,
    nodeId: config.node.id,
    logger,
    providers,
    tools: toolServers,
    skills: skills.kv,
    counterparty,
    episodes: {
      ledger: await bus.kv({ name: Buckets.Episodes, history: 1 }),
      historyMs: catalogue.eventHistorySeconds * 1000,
    },
    memory,
    runsSeats: config.node.roles.includes(NodeRole.Seats),
    lease: { ttlMs: config.node.seat_lease_seconds * 1000 },
    tracer: opts.tracer,
    admitted,
    localProgress: readModels.localProgress,
  });
  holdsSeat = (handle) => seats.runtime?.holds(handle) ?? false;
  const ledger = ledgerBudget(() => readModels.models.budgets());
  budgets = () => seats.runtime?.budget ?? ledger;
  // Outbound notification transports (ops/notifications.md): swapped with the restart-required items.
  const transports = startTransports({ bus, nodeId: config.node.id, logger, resolve: secrets.resolve });
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
      transports.applier,
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
  activeEpoch = () => configuration.view.state.active?.epoch ?? 0;
  // Integration records (arrivals, passes): read by `/integrations`, the setup routes and the actors.
  // The node's projection checkpoints: one store for every projection it runs, closed at the drain's end.
  const checkpoints = config.stream.store_dir ? openCheckpoints(config.stream.store_dir) : undefined;
  const integrations = await followIntegrations({
    bus,
    checkpoints,
    rollups: {
      nodeId: config.node.id,
      threshold: config.webhooks.compaction.threshold,
      everyMs: config.webhooks.compaction.every_seconds * 1000,
    },
    logger: logger.child({ component: 'projection.integrations' }),
  });
  // The integration actors (one per setup kind, serving svc.cmd.integration.*) and the setup routes.
  const setup = await startSetup({ bus, config, configuration, secrets, integrations, logger });
  // `notification_rate_limit` counts every wake on notice a seat gets on this node: webhooks and comments.
  const wakes = new RateWindow();
  // The native work tracker (tracker.backend: native): its projection, writer and routes.
  const work = await startWork({
    bus,
    config,
    configuration,
    secrets,
    logger,
    roster: () => fleet.roster(),
    wakes,
  });
  workAccess = work?.access ?? null;
  const webhooks = await startWebhooks({
    bus,
    integrations,
    view: configuration.view,
    config,
    logger,
    resolve: secrets.resolve,
    secretsStamp: secrets.stamp,
    configured: () => node.configured(),
    coverage: () => readModels.models.coverage(),
    wakes,
  });

  // Alarms (ops/fleet.md "Alarms"): evaluated every health pulse and at once when the bus link changes.
  const alarms = await startAlarms({
    bus,
    nodeId: config.node.id,
    logger,
    facts: () => ({
      busLinked: bus.linked(),
      // What the last concluded apply left (not `wait`); an unconfigured `stuck` node is alarmed too.
      posture: alarmedPosture(node.view()),
      lagSeconds,
      budgetRefused: readModels.models.budgets().refused,
      toolServers: toolServers.manager.status(),
      keylessProviders: Object.values(providers.snapshot())
        .filter((entry) => entry.keys.length > 0 && entry.keys.every((key) => key.reason === 'unresolved'))
        .map((entry) => ({ provider: entry.provider, unresolved: entry.keys.map((key) => key.ref) })),
      setupFindings: setup.findings(),
      duplicateNodeId: fleet.facts().admissionWithheld,
    }),
  });
  announcedAlarms = () => alarms.announced();
  return {
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
    // A getter: checkLag updates it on every reconcile tick.
    lagSeconds: () => lagSeconds,
    checkpoints,
    integrations,
    setup,
    work,
    webhooks,
    alarms,
    transports,
  };
}
