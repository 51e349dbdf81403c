/**
 * The tool servers of one node (spec apply order, "restart-required items"): from each applied
 * company document it starts what is new, stops what is gone, restarts what changed — a per-seat
 * instance only when its effective env (or its entry) changed — and routes a seat's tool calls to
 * the instance that serves the name. A changed `tool_prefix` renames tools without a restart.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import {
  mcpSource,
  type Company,
  type Resolver,
  type RoutedToolResult,
  type ToolEntry,
  type ToolServerStatus,
} from '../../schema/index.js';
import type { ToolServerInstance } from './toolservers.instance.js';
import { planInstances, type Plan } from './toolservers.plan.js';
import { resolveInstance, type ResolvedInstance } from './toolservers.resolve.js';
import { errorResult } from './toolservers.result.js';
import { defaultSupervision, type SupervisionSettings } from './toolservers.supervision.js';

/**
 * The instance module, with the MCP client SDK behind it, loaded when a first tool server starts: its
 * protocol schemas are a tenth of a node's start, which a company with no tool servers never needs.
 */
const instances = () => import('./toolservers.instance.js');

export interface ToolServerManagerOptions {
  readonly logger: Logger;
  /** Resolves `${VAR}` in entries and env values (the secret store, then the environment). */
  readonly resolve: Resolver;
  readonly supervision?: Partial<SupervisionSettings>;
  /** Instances started at once during an apply (each may be a process spawn). */
  readonly startConcurrency?: number;
  /**
   * Seats whose per-seat instances run on this node (in a fleet, the seats it holds); default all.
   * Call `refresh()` when the answer changes.
   */
  readonly runsSeat?: (handle: string) => boolean;
}

export interface ApplyOutcome {
  readonly started: string[];
  readonly stopped: string[];
  readonly restarted: string[];
  readonly renamed: string[];
}

export interface ToolServerManager {
  /** Brings the running instances in line with `next` (null: none run). */
  apply(next: Company | null): Promise<ApplyOutcome>;
  /** Applies the last document again (after `runsSeat` changed its answer). */
  refresh(): Promise<ApplyOutcome>;
  /**
   * The MCP tools one seat may call: shared instances and its own, first server in document order wins a
   * name. The same list (and entries) until the served tools change: read it, never change it.
   */
  toolsFor(seat: string): readonly ToolEntry[];
  /** Every tool any instance serves, once per name and server (the same list until the served tools change). */
  catalogue(): readonly ToolEntry[];
  /** `signal`: the caller's abort; a call still running when it fires is cancelled on the server. */
  callTool(
    seat: string,
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<RoutedToolResult>;
  status(): ToolServerStatus[];
  /** Called whenever the set of served tools may have changed (start, failure, list change, apply). */
  onToolsChanged(listener: () => void): () => void;
  /** Stops every instance (every child by pid) and refuses later applies. */
  stop(): Promise<void>;
}

interface Route {
  readonly instance: ToolServerInstance;
  readonly tool: Tool;
}

/** One served tool under its full name (prefix and tool name), and its catalogue entry. */
interface Served {
  readonly name: string;
  readonly route: Route;
  readonly entry: ToolEntry;
}

/**
 * Every served tool, in instance order, and by full name the instances serving it (in that order), and the
 * lists read from them: kept between calls, since building them walks every tool (10,000 tools: tens of ms
 * a list), and dropped on every change. Seats without instances of their own share one list.
 */
interface ServedIndex {
  readonly list: readonly Served[];
  readonly byName: ReadonlyMap<string, readonly Served[]>;
  /** Seats that have instances of their own (a `shared: false` server). */
  readonly ownInstances: ReadonlySet<string>;
  /** By seat (`null`: every seat without instances of its own), its tools as read. */
  readonly seats: Map<string | null, readonly ToolEntry[]>;
  catalogue: readonly ToolEntry[] | null;
}

const visibleTo = (seat: string, instance: ToolServerInstance): boolean =>
  instance.spec.seat === null || instance.spec.seat === seat;

/**
 * Runs `run` over the items, at most `size` at once, the next starting as soon as any ends: a server
 * hanging until its start timeout holds one slot, not a whole batch of healthy ones behind it.
 */
async function inPool<T>(items: readonly T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}

export function createToolServerManager(opts: ToolServerManagerOptions): ToolServerManager {
  const log = opts.logger;
  const supervision: SupervisionSettings = { ...defaultSupervision, ...opts.supervision };
  const concurrency = Math.max(1, opts.startConcurrency ?? 4);
  const running = new Map<string, ToolServerInstance>();
  const listeners = new Set<() => void>();
  let chain: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let last: Company | null = null;
  const runsSeat = opts.runsSeat ?? (() => true);

  let index: ServedIndex | null = null;
  /**
   * Each instance's served tools with their entries, kept for as long as it serves the same list under the
   * same prefix: the index is rebuilt at every change of any instance (an apply's closing change too), and
   * the same entries then let a reader that keeps what it derived from one (the read models' check) skip
   * 10,000 tools that did not change.
   */
  const segments = new WeakMap<
    ToolServerInstance,
    { readonly tools: readonly Tool[]; readonly prefix: string; readonly served: readonly Served[] }
  >();
  const segmentOf = (instance: ToolServerInstance): readonly Served[] => {
    const tools = instance.tools();
    const { prefix, server } = instance.spec;
    const known = segments.get(instance);
    if (known?.tools === tools && known.prefix === prefix) return known.served;
    const source = mcpSource(server);
    const served = tools.map((tool): Served => {
      const name = `${prefix}${tool.name}`;
      const entry: ToolEntry = {
        name,
        description: tool.description ?? '',
        source,
        annotations: { ...(tool.annotations ?? {}) },
        delivers: null,
        input_schema: { ...tool.inputSchema },
      };
      return { name, route: { instance, tool }, entry };
    });
    segments.set(instance, { tools, prefix, served });
    return served;
  };
  /** Called on every change of what is served: the running set, a spec, or an instance's tools. */
  const invalidate = (): void => {
    index = null;
  };
  const changed = (): void => {
    invalidate();
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        log.error({ err: error }, 'tool change listener failed');
      }
    }
  };

  const ordered = (): ToolServerInstance[] =>
    [...running.values()].sort(
      (a, b) => a.spec.order - b.spec.order || (a.spec.seat ?? '').localeCompare(b.spec.seat ?? ''),
    );

  /** A tool of a server visible to `seat` that serves it again once its backoff ends. */
  function waitingRoute(seat: string, name: string): Route | undefined {
    for (const instance of ordered()) {
      if (instance.spec.seat !== null && instance.spec.seat !== seat) continue;
      if (!name.startsWith(instance.spec.prefix)) continue;
      const tool = instance.servedBeforeFailure(name.slice(instance.spec.prefix.length));
      if (tool !== undefined) return { instance, tool };
    }
    return undefined;
  }

  function served(): ServedIndex {
    if (index !== null) return index;
    const list: Served[] = [];
    const byName = new Map<string, Served[]>();
    const ownInstances = new Set<string>();
    for (const instance of ordered()) {
      if (instance.spec.seat !== null) ownInstances.add(instance.spec.seat);
      for (const one of segmentOf(instance)) {
        list.push(one);
        const same = byName.get(one.name);
        if (same === undefined) byName.set(one.name, [one]);
        else same.push(one);
      }
    }
    return (index = { list, byName, ownInstances, seats: new Map(), catalogue: null });
  }

  /** The route of `name` for `seat`: the first instance in order visible to the seat that serves it. */
  const routeOf = (seat: string, name: string): Route | undefined =>
    served()
      .byName.get(name)
      ?.find((one) => visibleTo(seat, one.route.instance))?.route;

  /**
   * The seat's tools in instance order, each name once: the first server in order wins it. Built once per
   * change of the served tools (a hidden name is logged then), shared by the seats without own instances.
   */
  function toolsFor(seat: string): readonly ToolEntry[] {
    const current = served();
    const key = current.ownInstances.has(seat) ? seat : null;
    const known = current.seats.get(key);
    if (known !== undefined) return known;
    const out: ToolEntry[] = [];
    for (const one of current.list) {
      if (!visibleTo(seat, one.route.instance)) continue;
      const winner = routeOf(seat, one.name);
      if (winner === one.route) out.push(one.entry);
      else if (winner !== undefined && winner.instance.spec.server !== one.route.instance.spec.server)
        log.debug(
          { tool: one.name, server: one.route.instance.spec.server },
          'tool name already served; hidden',
        );
    }
    current.seats.set(key, out);
    return out;
  }

  /** Every served tool once per server and full name (a per-seat server's tools once), in instance order. */
  function catalogue(): readonly ToolEntry[] {
    const current = served();
    if (current.catalogue !== null) return current.catalogue;
    const seen = new Set<string>();
    const out: ToolEntry[] = [];
    for (const one of current.list) {
      const id = `${one.route.instance.spec.server}\u0000${one.name}`;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(one.entry);
    }
    return (current.catalogue = out);
  }

  async function applyNow(next: Company | null): Promise<ApplyOutcome> {
    const outcome: ApplyOutcome = { started: [], stopped: [], restarted: [], renamed: [] };
    if (stopped) return outcome;
    const plan: Plan = next === null ? { instances: new Map(), skipped: [] } : planInstances(next);
    for (const skip of plan.skipped)
      log.warn({ index: skip.index, reason: skip.reason }, 'tool-server entry skipped');
    const wanted = new Map<string, ResolvedInstance>();
    for (const [key, spec] of plan.instances)
      if (spec.seat === null || runsSeat(spec.seat)) wanted.set(key, resolveInstance(spec, opts.resolve));

    // 1. stop what is gone or changed
    const toStart: ResolvedInstance[] = [];
    const stopping: Array<Promise<void>> = [];
    for (const [key, instance] of running) {
      const target = wanted.get(key);
      if (target === undefined) {
        running.delete(key);
        invalidate();
        outcome.stopped.push(key);
        stopping.push(instance.stop());
      } else if (target.fingerprint !== instance.fingerprint) {
        running.delete(key);
        invalidate();
        outcome.restarted.push(key);
        stopping.push(instance.stop());
      } else if (target.spec.prefix !== instance.spec.prefix || target.spec.order !== instance.spec.order) {
        instance.respec(target);
        invalidate();
        outcome.renamed.push(key);
      } else {
        instance.respec(target);
        invalidate();
      }
    }
    await Promise.all(stopping);
    if (stopped) return outcome;
    // 2. start what is new or changed
    for (const [key, target] of wanted) {
      if (running.has(key)) continue;
      if (!outcome.restarted.includes(key)) outcome.started.push(key);
      toStart.push(target);
    }
    const fresh: ToolServerInstance[] = [];
    if (toStart.length > 0) {
      const { ToolServerInstance } = await instances();
      if (stopped) return outcome;
      for (const target of toStart) {
        const instance = new ToolServerInstance(target, supervision, log, changed);
        running.set(target.spec.key, instance);
        invalidate();
        fresh.push(instance);
      }
    }
    await inPool(fresh, concurrency, (instance) => (stopped ? Promise.resolve() : instance.start()));
    if (Object.values(outcome).some((keys: string[]) => keys.length > 0)) {
      log.info({ ...outcome }, 'tool servers applied');
      changed();
    }
    return outcome;
  }

  return {
    apply(next) {
      last = next;
      const run = chain.then(() => applyNow(next));
      chain = run.catch(() => undefined);
      return run;
    },
    refresh() {
      const run = chain.then(() => applyNow(last));
      chain = run.catch(() => undefined);
      return run;
    },
    toolsFor,
    catalogue,
    async callTool(seat, name, args, signal) {
      const route = routeOf(seat, name) ?? waitingRoute(seat, name);
      if (route === undefined) {
        return {
          ...errorResult(`no tool named ${name} is served to ${seat}`),
          source: null,
          server: null,
        };
      }
      const server = route.instance.spec.server;
      const result = await route.instance.call(route.tool.name, args, signal);
      return { ...result, source: mcpSource(server), server };
    },
    status: () => ordered().map((instance) => instance.status()),
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      // Stop what runs now (an apply in progress may be waiting on a slow start), then whatever
      // that apply still added before it saw `stopped`.
      stopped = true;
      const stopAll = async (): Promise<void> => {
        const all = [...running.values()];
        running.clear();
        invalidate();
        await Promise.all(all.map((instance) => instance.stop()));
      };
      await stopAll();
      await chain;
      await stopAll();
    },
  };
}
