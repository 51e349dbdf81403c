/**
 * `svc serve`: wires one node together from its Tier A configuration.
 *   1. open the bus engine it names and ensure the stream catalogue
 *   2. start the node actor (booting → unconfigured until a revision is applied)
 *   3. bind the gateway (api.port, and api.public.port when set)
 * and drains in the spec's order when told to stop.
 */
import type { Logger } from 'pino';
import { startNodeHost, type NodeHost } from '../actors/index.js';
import { ensureCatalogue, openBus, type Bus } from '../bus/index.js';
import { queryRoutes, startGateway, type AuthSettings, type Gateway } from '../http/index.js';
import { NodeRole, type TierA } from '../schema/index.js';
import { startConfiguration, type Configuration } from './config-wiring.js';
import { accessRoutesFor } from './access-wiring.js';
import { startSecrets, type Secrets } from './secrets-wiring.js';
import { startProviders } from './providers-wiring.js';
import { startToolServers, type ToolServers } from './toolservers-wiring.js';
import { startSchedules } from './schedules-wiring.js';
import { startSeats } from './seats-wiring.js';

const reconcileIntervalMs = 15_000;

export interface RunningNode {
  readonly bus: Bus;
  readonly node: NodeHost;
  readonly configuration: Configuration;
  /** The secret store and the `${VAR}` resolver (store, then environment). */
  readonly secrets: Secrets;
  /** Tool servers, builtin tools and the tool router the turn engine calls. */
  readonly tools: ToolServers;
  /** Null when `api.port` is 0 (binds nothing). */
  readonly gateway: Gateway | null;
  /** Drains once (later calls return the same promise): probes turn, listeners close, the bus closes. */
  drain(): Promise<void>;
}

export async function serve(config: TierA, opts: { logger: Logger; version: string }): Promise<RunningNode> {
  const { logger } = opts;
  const queue = config.providers.queue;
  const ingress = config.node.roles.includes(NodeRole.Ingress);

  // 1. bus
  const bus = await openBus({
    type: queue.type,
    url: queue.url,
    authToken: queue.auth_token,
    storeDir: config.stream.store_dir,
    logger: logger.child({ component: 'bus' }),
  });
  let gateway: Gateway | null = null;
  let tools: ToolServers | null = null;
  try {
    const catalogue = await ensureCatalogue(bus);

    // 2. node actor
    const node = startNodeHost(
      {
        node: config.node.id,
        version: opts.version,
        startedAt: new Date().toISOString(),
        queue: queue.type,
        roles: config.node.roles,
        ingress,
        eventHistorySeconds: catalogue.eventHistorySeconds,
        spendHistorySeconds: catalogue.spendHistorySeconds,
      },
      logger.child({ component: 'node' }),
    );
    // 3. configuration: follow the revisions, answer writes, apply what is active before binding
    node.send({ type: 'node.booted', configured: false, appliedEpoch: 0 });
    const secrets = await startSecrets({ bus, bucket: catalogue.secrets, config, logger });
    const providers = startProviders({ bus, nodeId: config.node.id, logger, resolve: secrets.resolve });
    tools = startToolServers({
      bus,
      nodeId: config.node.id,
      logger: logger.child({ component: 'toolservers' }),
      resolve: secrets.resolve,
    });
    const schedules = await startSchedules({ bus, coord: catalogue.coord, nodeId: config.node.id, logger });
    const seats = startSeats({
      bus,
      coord: catalogue.coord,
      nodeId: config.node.id,
      logger,
      providers,
      tools,
      runsSeats: config.node.roles.includes(NodeRole.Seats),
    });
    const configuration = await startConfiguration({
      bus,
      coord: catalogue.coord,
      node,
      config,
      logger,
      subsystems: [...seats.subsystems, providers, tools.subsystem, schedules.applier, ...seats.last],
    });
    await configuration.applyActive();

    // 4. gateway
    const auth: AuthSettings = {
      disabled: config.api.auth?.disabled ?? false,
      allowAnonymousRead: config.api.auth?.allow_anonymous_read ?? true,
      tokens: config.api.auth?.tokens ?? [],
      ...(config.api.auth?.company_writers ? { companyWriters: config.api.auth.company_writers } : {}),
    };
    if (config.api.port > 0) {
      const inFlight = (): number => gateway?.inFlight() ?? 0;
      gateway = await startGateway({
        host: config.api.host,
        port: config.api.port,
        ...(config.api.public ? { publicPort: config.api.public.port } : {}),
        ingress,
        auth,
        routes: ingress
          ? [
              ...configuration.routes(auth),
              ...secrets.routes(),
              ...tools.routes(),
              ...schedules.routes(),
              ...seats.routes(),
              ...accessRoutesFor({
                auth,
                configuration,
                secrets,
                credentialPool: () => providers.snapshot(),
              }),
              ...queryRoutes(
                new Map([...configuration.questions, ...tools.questions, ...schedules.questions]),
              ),
            ]
          : [],
        probes: {
          health: () => node.health({ inFlight: inFlight() }),
          ready: () => node.ready({ inFlight: inFlight() }),
          draining: () => node.draining(),
          configured: () => node.configured(),
        },
        logger: logger.child({ component: 'http' }),
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
    const reconcile = setInterval(() => void configuration.applyActive(), reconcileIntervalMs);

    let draining: Promise<void> | null = null;
    const drain = (): Promise<void> =>
      (draining ??= (async () => {
        logger.info('drain started');
        node.send({ type: 'node.drain' });
        clearInterval(reconcile);
        await gateway?.drain();
        await configuration.stop();
        await schedules.stop();
        await seats.stop();
        await tools?.stop();
        await secrets.stop();
        await bus.close();
        node.send({ type: 'node.stopped' });
        logger.info('drain finished');
      })());
    return { bus, node, configuration, secrets, tools, gateway, drain };
  } catch (error) {
    await gateway?.close();
    await tools?.stop();
    await bus.close();
    throw error;
  }
}
