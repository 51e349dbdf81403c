/**
 * The tool subsystem of one node: the tool-server manager (a restart-required part of every config
 * apply), the builtin tools, the router the turn engine calls, the catalogue `GET /tools` serves,
 * and `GET /mcp-servers` (plus the `mcp_servers` question) over the manager's status. The builtins'
 * stores: the personal memory store it is given, the `needs` relay (the seats runtime binds it)
 * and the learning gate fed by every apply.
 */
import type { Logger } from 'pino';
import {
  busEventSink,
  createLearningGate,
  createNeedsRelay,
  createSandboxDesk,
  createToolRouter,
  createToolServerManager,
  memoryTools,
  orgDirectoryFrom,
  orgTools,
  workTools,
  type WorkAccess,
  sandboxTools,
  seatSandbox,
  skillTools,
  type SkillShelf,
  serviceBuiltins,
  toolServersApplier,
  type LearningGate,
  type NeedsRelay,
  type PersonalMemory,
  type SandboxDeskRelay,
  type SubsystemApplier,
  type ToolRouter,
  type ToolServerManager,
} from '../actors/index.js';
import type { Bus } from '../bus/index.js';
import { mcpServersRoutes, type Question, type RouteDef } from '../http/index.js';
import type { Company, McpServersAnswer, Resolver, ServiceTool, ToolEntry } from '../schema/index.js';

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
  /** `GET /mcp-servers`, asking `questions` (default this subsystem's own: this node alone). */
  routes(questions?: ReadonlyMap<string, Question>): RouteDef[];
  readonly questions: ReadonlyMap<string, Question>;
  /** Where `ask_human` records a need: give it to the seats runtime, which binds it to the seats' hosts. */
  readonly needs: NeedsRelay;
  /** Whether a seat learns (org `learning.enabled` as first applied, the seat's `learning_enabled`). */
  readonly learning: LearningGate;
  /** What `run_sandbox` and `answer_sandbox` reach: bound by the sandbox wiring once its supervisor runs. */
  readonly sandbox: SandboxDeskRelay;
  stop(): Promise<void>;
}

export interface ToolServersOptions {
  readonly bus: Bus;
  readonly nodeId: string;
  readonly logger: Logger;
  /** `${VAR}` resolution: the secret store, then the environment. Default: the environment only. */
  readonly resolve?: Resolver;
  /** The personal memory store; without one the memory tools answer with an error. */
  readonly memory?: PersonalMemory;
  /** Default: a relay of this node's own. */
  readonly needs?: NeedsRelay;
  /** Seats whose per-seat tool servers run here (the seats this node holds); default all. */
  readonly runsSeat?: (handle: string) => boolean;
  /** The native work tracker once it runs (its tools are offered only when tracker.backend is native). */
  readonly work?: () => WorkAccess | null;
  /** The company's own services' tools (knowledge base, work tracker) a seat calls as itself. */
  readonly serviceTools?: readonly ServiceTool[];
  /** The tool skills `skill_list` and `skill_read` read (absent: not offered). */
  readonly skills?: SkillShelf;
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
  let applied: Company | null = null;
  const learning = createLearningGate((message) => logger.warn(message));
  const inner = toolServersApplier(manager);
  const subsystem: SubsystemApplier = {
    name: inner.name,
    async apply(next, previous) {
      await inner.apply(next, previous);
      applied = next;
      learning.apply(next);
    },
    async rollback(previous, failed) {
      await inner.rollback?.(previous, failed);
      applied = previous;
      learning.apply(previous);
    },
    // Said once the whole apply ended: a later subsystem's failure may still roll the change back.
    settled: () => learning.settled(),
  };
  const needs = opts.needs ?? createNeedsRelay();
  const events = busEventSink(opts.bus);
  const resolve = opts.resolve ?? ((name: string) => process.env[name]);
  const sandbox = createSandboxDesk(
    (seat) => seatSandbox(applied, seat, resolve),
    () => applied !== null,
  );
  const builtins = [
    ...memoryTools({
      memory: opts.memory ?? {
        remember: unavailable('personal memory'),
        recall: unavailable('personal memory'),
        forget: unavailable('personal memory'),
      },
      events,
      learning,
    }),
    ...orgTools({
      org: orgDirectoryFrom(() => applied),
      needs,
      events,
    }),
    ...(opts.work ? workTools({ work: opts.work }) : []),
    ...sandboxTools({ desk: sandbox }),
    ...(opts.skills
      ? skillTools({
          shelf: opts.skills,
          learns: (seat) => learning.synthesis(seat) !== null || learning.promotion(seat),
        })
      : []),
    ...serviceBuiltins(opts.serviceTools ?? []),
  ];
  const router = createToolRouter({ builtins, servers: manager, logger });
  const status = (): McpServersAnswer => ({ nodes: [{ node: opts.nodeId, servers: manager.status() }] });
  const questions = new Map<string, Question>([['mcp_servers', { guarded: true, answer: () => status() }]]);
  return {
    manager,
    router,
    subsystem,
    catalogue: () => router.catalogue(),
    onCatalogueChanged: (listener) => manager.onToolsChanged(listener),
    status,
    routes: (asked = questions) => mcpServersRoutes(asked),
    questions,
    needs,
    learning,
    sandbox,
    stop: () => manager.stop(),
  };
}
