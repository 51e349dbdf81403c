/**
 * A company whose seat `bob` has a sandbox running the fake coding agent, plus what a node wires around
 * it: the sandbox records and supervisor (scripts/sandbox-wiring.ts), a gateway serving the token routes
 * on a free port, and a local OTLP collector standing for the upstream. Waits are on stored records.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { startGateway, type Gateway } from '../../../http/index.js';
import { startSandboxes, type SandboxWiring } from '../../../scripts/sandbox-wiring.js';
import type { SandboxRunRecord } from '../../../schema/index.js';
import { freePort } from '../../harness/child.js';
import { startLlmServer } from '../../fixtures/llm/llm-server.js';
import { pino } from 'pino';
import type { Script } from '../../fixtures/llm/script.js';
import { company, startCompany, type Harness } from '../seat/harness.js';
import type { Captured } from '../toolservers/harness.js';

export const fakeAgentPath = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/sandbox/fake-agent.mjs',
);
export const fakeAgentCommand = `${process.execPath} ${fakeAgentPath}`;

export interface Collected {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export async function startCollector(t: Test): Promise<{ url: string; received: Collected[] }> {
  const received: Collected[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, received };
}

/** The harness company with `sandbox` set on Bob; `toolEnv` is added to its `files` tool server's. */
export function sandboxCompany(
  env: Record<string, string>,
  setup: string[] = [],
  toolEnv: Record<string, string> = {},
) {
  return (llmBaseUrl: string): Record<string, unknown> => {
    const base = company(llmBaseUrl);
    const units = base['units'] as Array<{ roles: Array<Record<string, unknown>> }>;
    const bob = units[0]!.roles.find((r) => r['name'] === 'Bob')!;
    bob['sandbox'] = { setup, env, default_coding_agent: fakeAgentCommand };
    const servers = (base['mcp_servers'] ?? []) as Array<{ env?: Record<string, string> }>;
    const mcp_servers = servers.map((s) => ({ ...s, env: { ...s.env, ...toolEnv } }));
    return { units, mcp_servers };
  };
}

export interface SandboxHarness extends Harness {
  readonly sandboxes: SandboxWiring;
  readonly gateway: Gateway;
  readonly base: string;
  readonly root: string;
  /** What the reconcile last handed over. */
  readonly reconciled: unknown[][];
  /** Resolves with the run once `match` holds for it. */
  waitRun(match: (run: SandboxRunRecord) => boolean, timeoutMs?: number): Promise<SandboxRunRecord>;
}

export async function startSandboxCompany(
  t: Test,
  opts: {
    script: Script;
    env: Record<string, string>;
    setup?: string[];
    collector?: string;
    /** More of the forwarder's `OTEL_EXPORTER_OTLP_*` (say a longer timeout for a collector that holds). */
    upstreamEnv?: Record<string, string>;
    storeDir?: string;
    /** False: no `SVC_SANDBOX_OTEL_RECEIVER_URL`; a string: that value (default: the gateway's own URL). */
    receiver?: boolean | string;
    /** Added to the `files` tool server's environment (e.g. `ECHO_HANG_TOOLS`). */
    toolEnv?: Record<string, string>;
    /** Collects the node's log lines (tool-server stderr included). */
    logs?: Captured;
  },
): Promise<SandboxHarness> {
  const root = opts.storeDir ?? (await mkdtemp(join(tmpdir(), 'svc-sandbox-')));
  if (!opts.storeDir) t.teardown(() => rm(root, { recursive: true, force: true }));
  const llm = await startLlmServer({ wire: 'openai', script: opts.script });
  t.teardown(() => llm.close());
  const h = await startCompany(t, {
    script: [],
    llm,
    storeDir: root,
    extra: sandboxCompany(opts.env, opts.setup, opts.toolEnv)(llm.baseUrl),
    ...(opts.logs ? { logs: opts.logs } : {}),
  });
  const port = await freePort();
  const reconciled: unknown[][] = [];
  const sandboxes = await startSandboxes({
    bus: h.bus,
    nodeId: 'node-0',
    storeDir: root,
    runsSeats: true,
    tools: h.tools,
    logger: opts.logs?.logger ?? pino({ level: 'silent' }),
    reconcile: (runs) => reconciled.push(runs),
    env: {
      ...(opts.receiver === false
        ? {}
        : {
            SVC_SANDBOX_OTEL_RECEIVER_URL:
              typeof opts.receiver === 'string' ? opts.receiver : `http://127.0.0.1:${port}`,
          }),
      ...(opts.collector
        ? {
            OTEL_EXPORTER_OTLP_ENDPOINT: opts.collector,
            OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=upstream%20secret',
          }
        : {}),
      ...opts.upstreamEnv,
    },
    pollMs: 50,
    telemetryEveryMs: 100,
  });
  const gateway = await startSandboxGateway(port, sandboxes.routes('test'));
  t.teardown(async () => {
    await gateway.close();
    await sandboxes.stop();
  });
  return {
    ...h,
    sandboxes,
    gateway,
    base: `http://127.0.0.1:${port}`,
    root,
    reconciled,
    waitRun: (match, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const found = sandboxes.records.all().find(match);
        if (found) return resolve(found);
        const timer = setTimeout(() => {
          off();
          reject(new Error('no run matched in time'));
        }, timeoutMs);
        const off = sandboxes.records.onChange((run) => {
          if (!match(run)) return;
          clearTimeout(timer);
          off();
          resolve(run);
        });
      }),
  };
}

/**
 * Launches a coding run of Bob's for `task: hold` (with `FAKE_HOLD`, the fake agent waits for its
 * `control/release` file); `trace` is the character its trace id repeats.
 */
export function launchBobHolding(h: SandboxHarness, sandboxId: string, trace: string, turnId = 'turn-1') {
  const desk = h.tools.sandbox;
  return desk.launch({
    sandbox_id: sandboxId,
    seat: 'bob',
    role: 'Bob',
    agent_id: 'agent-bob',
    turn_id: turnId,
    trace_id: trace.repeat(32),
    task: 'hold',
    work_item: null,
    coding_agent: 'fake',
    settings: desk.settingsFor('bob')!.settings,
  });
}

/** A gateway on `port` serving a sandbox host's routes, guarded by the `ops` token. */
export function startSandboxGateway(
  port: number,
  routes: Parameters<typeof startGateway>[0]['routes'],
): ReturnType<typeof startGateway> {
  return startGateway({
    host: '127.0.0.1',
    port,
    ingress: true,
    auth: {
      disabled: false,
      allowAnonymousRead: false,
      tokens: [{ id: 'ops', token: 'ops-token-0123456789' }],
    },
    probes: {
      health: () => ({}),
      ready: () => ({ ready: true }),
      draining: () => false,
      configured: () => true,
    },
    routes,
  });
}
