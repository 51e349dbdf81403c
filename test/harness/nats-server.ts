/**
 * Starts real `nats-server` processes on loopback for tests (as nats.js's `nst` does): random free
 * ports, a temporary store, readiness taken from the server's own log, and every process killed by pid —
 * in `stop()`, in a tap teardown when a test is given, and at process exit as a last resort.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export const natsServerBinary = existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';

export interface NatsServerOptions {
  /** JetStream on (default true). */
  readonly jetstream?: boolean;
  /** Store directory; a temporary one (removed on stop) when absent. */
  readonly storeDir?: string;
  readonly authToken?: string;
  /** Registers `stop()` as a teardown of this test, so the process dies even when the test fails. */
  readonly t?: { teardown(fn: () => unknown): void };
}

export interface NatsServerHandle {
  readonly url: string;
  readonly port: number;
  /** Pid of the running process (changes on restart). */
  readonly pid: number;
  readonly storeDir: string;
  /** Stops the process (SIGTERM, then SIGKILL) and removes a temporary store. Idempotent. */
  stop(): Promise<void>;
  /** Stops (SIGTERM by default; SIGKILL to simulate a crash) and starts again on the same port and store. */
  restart(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

export interface NatsClusterHandle {
  readonly urls: readonly string[];
  readonly servers: readonly NatsServerHandle[];
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export { freePort };

/** Spawns the server and resolves once its log says every line in `ready` appeared. */
async function launch(
  args: readonly string[],
  ready: readonly RegExp[],
  timeoutMs = 45_000,
): Promise<ChildProcess> {
  const child = spawn(natsServerBinary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let log = '';
  const pending = [...ready];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`nats-server not ready in ${timeoutMs} ms:\n${log}`)),
        timeoutMs,
      );
      const done = (error?: Error) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      child.once('error', (error) => done(error));
      child.once('exit', (code) => done(new Error(`nats-server exited (${code}) before ready:\n${log}`)));
      child.stderr?.on('data', (chunk: Buffer) => {
        log = (log + chunk.toString()).slice(-8_000);
        for (let i = pending.length - 1; i >= 0; i -= 1) if (pending[i]?.test(log)) pending.splice(i, 1);
        if (pending.length === 0) done();
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  // Keep draining stderr so a chatty server never blocks on a full pipe.
  child.stderr?.removeAllListeners('data');
  child.stderr?.resume();
  return child;
}

async function terminate(child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

interface Spec {
  readonly args: (port: number) => string[];
  readonly ready: readonly RegExp[];
  /** How long the log may take to show every `ready` line (default 45 s). */
  readonly readyWithinMs?: number;
}

async function supervise(
  spec: Spec,
  port: number,
  storeDir: string,
  ownStore: boolean,
): Promise<NatsServerHandle> {
  let child = await launch(spec.args(port), spec.ready, spec.readyWithinMs);
  let stopped = false;
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    get pid() {
      return child.pid ?? 0;
    },
    storeDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      await terminate(child);
      if (ownStore) rmSync(storeDir, { recursive: true, force: true });
    },
    async restart(signal) {
      await terminate(child, signal);
      child = await launch(spec.args(port), spec.ready, spec.readyWithinMs);
    },
  };
}

/** One server on a random loopback port (JetStream on by default). */
export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const ownStore = opts.storeDir === undefined;
  const storeDir = opts.storeDir ?? mkdtempSync(join(tmpdir(), 'svc-nats-'));
  const spec: Spec = {
    args: (port) => [
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      ...(opts.jetstream === false ? [] : ['-js', '-sd', storeDir]),
      ...(opts.authToken ? ['--auth', opts.authToken] : []),
    ],
    ready: [/Server is ready/],
  };
  let lastError: unknown;
  // A port picked free can be taken before the server binds it; try another.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const handle = await supervise(spec, await freePort(), storeDir, ownStore);
      opts.t?.teardown(() => handle.stop());
      return handle;
    } catch (error) {
      lastError = error;
    }
  }
  if (ownStore) rmSync(storeDir, { recursive: true, force: true });
  throw lastError;
}

/** Clusters started by this process: each gets a name of its own. */
let clusters = 0;

/**
 * A JetStream cluster of `size` servers with routes on loopback; resolves once every server has seen a
 * metadata leader elected.
 */
export async function startNatsCluster(
  size = 3,
  opts: { t?: { teardown(fn: () => unknown): void } } = {},
): Promise<NatsClusterHandle> {
  // A cluster whose ports were taken between the pick and the bind never elects a leader, and now and then
  // (nats-server 2.9, routes racing at start) one whose routes all came up does not either: its servers
  // log nothing more after their routes. Either way it is started anew, under a name of its own.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const handle = await launchCluster(size, `svc-test-${process.pid}-${(clusters += 1)}`);
      opts.t?.teardown(() => handle.stop());
      return handle;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function launchCluster(size: number, cluster: string): Promise<NatsClusterHandle> {
  // Every port distinct: the kernel may hand one back twice between two picks.
  const picked = new Set<number>();
  while (picked.size < size * 2) picked.add(await freePort());
  const ports = [...picked];
  const clientPorts = ports.slice(0, size);
  const routePorts = ports.slice(size);
  const routes = routePorts.map((p) => `nats://127.0.0.1:${p}`).join(',');
  const started = await Promise.allSettled(
    clientPorts.map((port, i) => {
      const storeDir = mkdtempSync(join(tmpdir(), `svc-nats-c${i}-`));
      const spec: Spec = {
        args: (p) => [
          '-a',
          '127.0.0.1',
          '-p',
          String(p),
          '-js',
          '-sd',
          storeDir,
          '-n',
          `n${i + 1}`,
          '--cluster_name',
          cluster,
          '--cluster',
          `nats://127.0.0.1:${routePorts[i]}`,
          '--routes',
          routes,
        ],
        ready: [/Server is ready/, /(new metadata leader|Self is new JetStream cluster metadata leader)/],
        // An election takes seconds even on a loaded machine; a stuck one is retried rather than awaited.
        readyWithinMs: 25_000,
      };
      return supervise(spec, port, storeDir, true);
    }),
  );
  const servers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.all(servers.map((s) => s.stop()));
    throw failed.reason;
  }
  return {
    urls: servers.map((s) => s.url),
    servers,
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
}
