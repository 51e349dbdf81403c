/**
 * Detached coding runs on one node (ops/sandboxes.md): the run records (every node), the supervisor and
 * its local backend (seats nodes; runs under `<store_dir>/sandboxes`, or the temp dir without a store),
 * the `run_sandbox` desk bound to it, `POST /sandbox-runs/{id}/cancel`, the `sandboxes` reconcile (at start and every 30 s, pushing only on
 * change), and the token routes `/mcp/{token}` and `/otlp/{token}/v1/{signal}`, both only when
 * `SVC_SANDBOX_OTEL_RECEIVER_URL` is set (it is also the base URL a run is given for both).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import {
  bootstrapHide,
  bubblewrapIsolation,
  isLive,
  listedRun,
  localBackend,
  openSandboxRecords,
  otlpForwarder,
  probeIsolation,
  processIsolation,
  startSandboxSupervisor,
  type Isolation,
  type SandboxRecords,
  type SandboxSupervisor,
} from '../actors/index.js';
import type { Bus } from '../bus/index.js';
import {
  mcpBridgeRoutes,
  otlpRoutes,
  sandboxCancelRoutes,
  type RouteDef,
  type TokenRun,
} from '../http/index.js';
import { NodeRole, SandboxIsolation, type SandboxRunRecord, type TierA } from '../schema/index.js';
import type { ToolServers } from './toolservers-wiring.js';

/** Spec rule 6 / Limits: the sandbox reconcile. */
export const SANDBOX_RECONCILE_MS = 30_000;
/** The sandbox tools are not offered back to a run through the bridge. */
const notBridged = new Set(['run_sandbox', 'answer_sandbox', 'cancel_sandbox']);

export interface SandboxWiring {
  readonly records: SandboxRecords;
  readonly supervisor: SandboxSupervisor | null;
  routes(version: string): RouteDef[];
  stop(): Promise<void>;
}

/**
 * The isolation `sandbox.isolation` names. Bubblewrap hides the store directory and the bootstrap file's
 * directory: the keyring and the bus's records are the node's, never a run's.
 */
export function sandboxIsolation(config: Pick<TierA, 'sandbox' | 'stream' | 'file'>): Isolation {
  if (config.sandbox.isolation === SandboxIsolation.Process) return processIsolation;
  const hide = [config.stream.store_dir ?? null, bootstrapHide(config.file)].filter(
    (path): path is string => path !== null,
  );
  return bubblewrapIsolation({ network: config.sandbox.network, hide });
}

/** Why a seats node cannot run sandboxes as `sandbox.isolation` asks, or null when it can (or runs none). */
export function refusedIsolation(
  config: Pick<TierA, 'sandbox' | 'stream' | 'file' | 'node'>,
): Promise<string | null> {
  if (!config.node.roles.includes(NodeRole.Seats)) return Promise.resolve(null);
  return probeIsolation(sandboxIsolation(config));
}

/**
 * `SVC_SANDBOX_OTEL_RECEIVER_URL` as the base the token URLs are built on, or null when unset. A value that
 * is not an http(s) URL without query or fragment (`localhost:8080` is a usual slip) would hand every run
 * endpoints no exporter can reach: it is treated as unset, loudly, rather than passed on.
 */
function receiverBase(raw: string | undefined, logger: Logger): string | null {
  const value = raw?.trim().replace(/\/+$/, '') ?? '';
  if (value === '') return null;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash)
    return value;
  logger.error(
    { event: 'sandbox_receiver_url_invalid' },
    'SVC_SANDBOX_OTEL_RECEIVER_URL is not an http(s) base URL; runs get no token URLs',
  );
  return null;
}

export async function startSandboxes(opts: {
  readonly bus: Bus;
  readonly nodeId: string;
  readonly storeDir: string | null;
  readonly runsSeats: boolean;
  /** How runs are isolated (default: plain processes). */
  readonly isolation?: Isolation;
  readonly tools: ToolServers;
  readonly logger: Logger;
  /** The live `sandboxes` set is replaced from the records (pushes only when it changed). */
  readonly reconcile: (runs: unknown[]) => void;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly pollMs?: number;
  /** How long a run's export counts may wait for its next record (default 5 s). */
  readonly telemetryEveryMs?: number;
  readonly reconcileMs?: number;
  /** The fleet's live nodes (null while unknown): a run of a node gone from it a month ends as lost. */
  readonly roster?: () => Promise<readonly string[] | null>;
}): Promise<SandboxWiring> {
  const env = opts.env ?? process.env;
  const logger = opts.logger.child({ component: 'sandbox' });
  const receiverUrl = receiverBase(env['SVC_SANDBOX_OTEL_RECEIVER_URL'], logger);
  const records = await openSandboxRecords({ bus: opts.bus, node: opts.nodeId, logger });
  const supervisor = opts.runsSeats
    ? startSandboxSupervisor({
        bus: opts.bus,
        node: opts.nodeId,
        records,
        backend: localBackend({
          root: join(opts.storeDir ?? tmpdir(), 'sandboxes'),
          ...(opts.isolation ? { isolation: opts.isolation } : {}),
        }),
        logger,
        otlpUrl: receiverUrl,
        mcpUrl: receiverUrl,
        secretsOf: (seat) => opts.tools.sandbox.settingsFor(seat)?.secrets ?? [],
        hasSandbox: (seat) => opts.tools.sandbox.hasSandbox(seat),
        ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}),
        ...(opts.telemetryEveryMs !== undefined ? { telemetryEveryMs: opts.telemetryEveryMs } : {}),
        ...(opts.roster ? { roster: opts.roster } : {}),
      })
    : null;
  if (supervisor) opts.tools.sandbox.bind({ bus: opts.bus, records, supervisor });
  const reconcile = (): void => opts.reconcile(records.all().map(listedRun));
  reconcile();
  const timer = setInterval(reconcile, opts.reconcileMs ?? SANDBOX_RECONCILE_MS);
  const forwarder = otlpForwarder({ env, logger });

  const tokenRun = (run: SandboxRunRecord): TokenRun => ({
    sandbox_id: run.sandbox_id,
    agent_handle: run.agent_handle,
    agent_id: run.agent_id,
    turn_id: run.turn_id,
    trace_id: run.trace_id,
    span_id: run.span_id,
    live: isLive(run),
  });
  /**
   * Fires when the run ends: a tool call the agent made through the bridge ends with its run (the tool
   * server is told to cancel it), so nothing the run started goes on acting for the seat afterwards.
   */
  const runEnd = (id: string): { signal: AbortSignal; off: () => void } => {
    const abort = new AbortController();
    const end = (run: SandboxRunRecord | undefined): void => {
      if (run && run.sandbox_id === id && !isLive(run) && !abort.signal.aborted)
        abort.abort(`coding run ${id} ended ${run.status}`);
    };
    const off = records.onChange(end);
    end(records.get(id));
    return { signal: abort.signal, off };
  };
  const runOf = (token: string): TokenRun | null => {
    const run = records.byToken(token);
    return run ? tokenRun(run) : null;
  };
  /**
   * The bridge acts as the seat: once the applied document gives the seat no sandbox (removed, or its
   * `sandbox` taken away) the run's token is refused as an ended run's is, before its node has cancelled it.
   */
  const bridgedRunOf = (token: string): TokenRun | null => {
    const run = runOf(token);
    return run && opts.tools.sandbox.settingsFor(run.agent_handle) !== null ? run : null;
  };
  return {
    records,
    supervisor,
    routes(version) {
      const cancel = sandboxCancelRoutes({ bus: opts.bus, nodeOf: (id) => records.get(id)?.node ?? null });
      // A run is given the token routes' URLs only when the receiver URL is set: without it nobody holds one.
      if (receiverUrl === null) return cancel;
      const bridge = mcpBridgeRoutes(
        {
          runOf: bridgedRunOf,
          tools: (run) => opts.tools.router.toolsFor(run.agent_handle).filter((t) => !notBridged.has(t.name)),
          async call(run, name, args, signal) {
            if (notBridged.has(name))
              return {
                content: [{ type: 'text', text: `${name} is not offered to a coding run` }],
                is_error: true,
              };
            const ended = runEnd(run.sandbox_id);
            try {
              return await opts.tools.router.call(
                {
                  seat: run.agent_handle,
                  agent_id: run.agent_id,
                  turn_id: run.turn_id,
                  trace: { trace_id: run.trace_id, parent_span_id: run.span_id },
                  signal: AbortSignal.any([signal, ended.signal]),
                },
                { name, arguments: args },
              );
            } finally {
              ended.off();
            }
          },
        },
        version,
      );
      const otlp = otlpRoutes({
        runOf,
        received(run, signal, spans) {
          const record = records.get(run.sandbox_id);
          if (record && supervisor) supervisor.telemetry(record, signal, spans);
        },
        forward: (signal, contentType, body) => forwarder.forward(signal, contentType, body),
      });
      return [...cancel, ...otlp, ...bridge];
    },
    async stop() {
      clearInterval(timer);
      await supervisor?.stop();
      await records.stop();
    },
  };
}
