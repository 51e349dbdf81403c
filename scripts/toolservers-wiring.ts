/**
 * The tool subsystem of one node: the tool-server manager (a restart-required part of every config
 * apply), the builtin tools, the router the turn engine calls, the catalogue `GET /tools` serves,
 * and `GET /mcp-servers` (plus the `mcp_servers` question) over the manager's status.
 */
import type { Logger } from 'pino';
import {
  busEventSink,
  createToolRouter,
  createToolServerManager,
  memoryTools,
  orgDirectoryFrom,
  orgTools,
  toolServersApplier,
  type NeedsRecorder,
  type PersonalMemory,
  type SubsystemApplier,
  type ToolRouter,
  type ToolServerManager,
} from '../actors/index.js';
import type { Bus } from '../bus/index.js';
import { mcpServersRoutes, type Question, type RouteDef } from '../http/index.js';
import type { McpServersAnswer, Resolver, ToolEntry } from '../schema/index.js';

export interface ToolServers {
  readonly manager: ToolServerManager;
  /** What the turn engine calls: a seat's tools and the calls it makes. */
  readonly router: ToolRouter;
  /** Give to the config applier (`startConfiguration({ subsystems })`). */
  readonly subsystem: SubsystemApplier;
  /** For `GET /tools` and the `tools` snapshot section. */
  readonly catalogue: () => ToolEntry[];
  /** Called when served tools may have changed (an apply, a start, a failure): re-push `tools`. */
  onCatalogueChanged(listener: () => void): () => void;
  readonly status: () => McpServersAnswer;
  routes(): RouteDef[];
  readonly questions: ReadonlyMap<string, Question>;
  stop(): Promise<void>;
}

export interface ToolServersOptions {
  readonly bus: Bus;
  readonly nodeId: string;
  readonly logger: Logger;
  /** `${VAR}` resolution: the secret store, then the environment. Default: the environment only. */
  readonly resolve?: Resolver;
  /** The turn engine's stores; until it provides them the memory and ask tools answer with an error. */
  readonly memory?: PersonalMemory;
  readonly needs?: NeedsRecorder;
  /** Seats whose per-seat tool servers run here (the seats this node holds); default all. */
  readonly runsSeat?: (handle: string) => boolean;
}

const unavailable = (what: string) => (): Promise<never> =>
  Promise.reject(new Error(`${what} is not available on this node yet`));

export function startToolServers(opts: ToolServersOptions): ToolServers {
  const { logger } = opts;
  const manager = createToolServerManager({
    logger,
    resolve: opts.resolve ?? ((name) => process.env[name]),
    ...(opts.runsSeat ? { runsSeat: opts.runsSeat } : {}),
  });
  // The org directory reads the document this subsystem last applied (already opened if sealed).
  let applied: unknown = null;
  const inner = toolServersApplier(manager);
  const subsystem: SubsystemApplier = {
    name: inner.name,
    async apply(next, previous) {
      await inner.apply(next, previous);
      applied = next;
    },
    async rollback(previous, failed) {
      await inner.rollback?.(previous, failed);
      applied = previous;
    },
  };
  const events = busEventSink(opts.bus);
  const builtins = [
    ...memoryTools({
      memory: opts.memory ?? {
        remember: unavailable('personal memory'),
        recall: unavailable('personal memory'),
      },
      events,
    }),
    ...orgTools({
      org: orgDirectoryFrom(() => applied),
      needs: opts.needs ?? { recordNeed: unavailable('the needs state') },
      events,
    }),
  ];
  const router = createToolRouter({ builtins, servers: manager, logger });
  const status = (): McpServersAnswer => ({ nodes: [{ node: opts.nodeId, servers: manager.status() }] });
  return {
    manager,
    router,
    subsystem,
    catalogue: () => router.catalogue(),
    onCatalogueChanged: (listener) => manager.onToolsChanged(listener),
    status,
    routes: () => mcpServersRoutes(status),
    questions: new Map<string, Question>([['mcp_servers', { guarded: true, answer: () => status() }]]),
    stop: () => manager.stop(),
  };
}
