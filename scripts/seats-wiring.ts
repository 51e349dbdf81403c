/**
 * Wires the agent seats and the turn engine into a node: on a node with the `seats` role, the seats
 * runtime is the `org` and `turn_engine` subsystems of every apply (take seat leases, spawn the held
 * seats, terminate, swap; new limits for the next turns); its turns call the provider registry and the
 * tool router, whose per-seat tool servers follow the held seats. Any ingress node
 * serves the pause and resume routes, which reach the seat hosts over the bus.
 */
import type { Logger } from 'pino';
import {
  startSeatsRuntime,
  type PersonalMemory,
  type ProviderRegistry,
  type SeatsRuntime,
  type SubsystemApplier,
  type LocalProgress,
} from '../actors/index.js';
import type { Bus, Kv } from '../bus/index.js';
import type { Resolver, Tracer } from '../schema/index.js';
import { seatRoutes, type RouteDef } from '../http/index.js';
import type { ToolServers } from './toolservers-wiring.js';

export interface Seats {
  /** Give first to `startConfiguration({ subsystems })`; empty on a node without the `seats` role. */
  readonly subsystems: SubsystemApplier[];
  /** Give last: opens the inboxes once providers and tool servers are applied. */
  readonly last: SubsystemApplier[];
  readonly runtime: SeatsRuntime | null;
  /** `agentHandle`: the handle of the agent seat of the active document an id names (503 rather than 404 while it moves). */
  routes(agentHandle: (id: string) => string | null): RouteDef[];
  /** Drain's first step: no new wake; running turns get `graceMs` to finish, then are cut (handed over). */
  drain(graceMs: number): Promise<void>;
  stop(): Promise<void>;
}

export function startSeats(opts: {
  readonly bus: Bus;
  readonly coord: Kv;
  readonly turnsDone: Kv;
  readonly nodeId: string;
  readonly logger: Logger;
  readonly providers: ProviderRegistry;
  readonly tools: ToolServers;
  /** The `svc_tool_skills` bucket: with it, seats synthesise skills where `learning.skill_synthesis` is on. */
  readonly skills?: Kv;
  /** The `svc_counterparty` bucket: with it, seats keep profiles where `learning.counterparty` is on. */
  readonly counterparty?: Kv;
  /** The `svc_episodes` bucket and the event history's age: with them, learning seats run the episode lifecycle. */
  readonly episodes?: { readonly ledger: Kv; readonly historyMs: number };
  /** The seats' personal memory: with it, seats reflect on their episodes where `learning.reflect` is on. */
  readonly memory?: PersonalMemory;
  /** False when the node lacks the `seats` role: no seat runs here. */
  readonly runsSeats: boolean;
  /** Seat lease timing (tests shorten it); default a 30 s ttl renewed every 10 s. */
  readonly lease?: { readonly ttlMs?: number; readonly renewEveryMs?: number };
  /** The node's tracer: turn, phase, model call and tool call spans. */
  readonly tracer?: Tracer;
  /** False while another process writes this node id (admission withheld): no seat is taken. */
  readonly admitted?: () => boolean;
  /** `${VAR}` lookup for the company timezone (secret store, then environment). */
  readonly resolve?: Resolver;
  /** This node's read models, handed the seats' live-view frames as they go out. */
  readonly localProgress?: LocalProgress;
}): Seats {
  const runtime = opts.runsSeats
    ? startSeatsRuntime({
        bus: opts.bus,
        ...(opts.resolve ? { resolve: opts.resolve } : {}),
        coord: opts.coord,
        turnsDone: opts.turnsDone,
        nodeId: opts.nodeId,
        logger: opts.logger,
        llm: opts.providers,
        tools: opts.tools.router,
        needs: opts.tools.needs,
        learning: (handle) => opts.tools.learning.enabled(handle),
        ...(opts.skills
          ? {
              synthesis: {
                settings: (handle: string) => opts.tools.learning.synthesis(handle),
                promotes: (handle: string) => opts.tools.learning.promotion(handle),
                skills: opts.skills,
              },
            }
          : {}),
        ...(opts.counterparty
          ? {
              counterparty: {
                enabled: (handle: string) => opts.tools.learning.counterparty(handle),
                profiles: opts.counterparty,
              },
            }
          : {}),
        ...(opts.episodes
          ? {
              episodes: {
                limits: (handle: string) => opts.tools.learning.episodeLifecycle(handle),
                ...opts.episodes,
              },
            }
          : {}),
        ...(opts.memory
          ? {
              reflection: {
                settings: (handle: string) => opts.tools.learning.reflection(handle),
                memory: opts.memory,
              },
            }
          : {}),
        // The per-seat tool servers follow the held seats (`runsSeat` in the tool subsystem).
        onHeldChanged: async () => {
          await opts.tools.manager.refresh();
        },
        ...(opts.lease ? { lease: opts.lease } : {}),
        ...(opts.localProgress ? { localProgress: opts.localProgress } : {}),
        ...(opts.tracer ? { tracer: opts.tracer } : {}),
        ...(opts.admitted ? { admitted: opts.admitted } : {}),
      })
    : null;
  return {
    subsystems: runtime ? [runtime.org, runtime.turnEngine] : [],
    last: runtime ? [runtime.inboxes] : [],
    runtime,
    routes: (agentHandle) => seatRoutes({ bus: opts.bus, agentHandle }),
    drain: async (graceMs) => {
      await runtime?.drain(graceMs);
    },
    stop: async () => {
      await runtime?.stop();
    },
  };
}
