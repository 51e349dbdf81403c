/**
 * The embedded engine's server (`providers.queue.type: jetstream-embedded`): this process starts a
 * local `nats-server -js` on loopback storing under `stream.store_dir`, restarts it with backoff if it
 * dies, and stops it by pid on shutdown (SIGTERM, then SIGKILL after a deadline). The server dies with
 * the node (parent-death signal); one a killed node left behind is stopped at the next start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import { EngineUnavailableError } from '../errors.js';
import { clearStaleServer, recordOwner } from './embedded-stale.js';

export interface EmbeddedNatsOptions {
  /** The node's store directory; the server keeps its data in `<storeDir>/jetstream`. */
  readonly storeDir: string;
  readonly logger?: Logger;
  /** Path of the server binary; default: `nats-server` on PATH, then /usr/sbin and /usr/local/sbin. */
  readonly binary?: string;
  /** How long `stop()`, or the start stopping a stale server, waits after SIGTERM before SIGKILL. Default 10 s. */
  readonly stopDeadlineMs?: number;
  /** Refuse a `storeDir` with no server data instead of starting an empty server there. */
  readonly existingStore?: boolean;
}

export interface EmbeddedNats {
  readonly url: string;
  /** Pid of the running server (changes when the supervisor restarts it). */
  readonly pid: number;
  stop(): Promise<void>;
}

const installHint = 'install the Debian package: apt-get install nats-server';
const readyTimeoutMs = 15_000;
const restartCapMs = 10_000;
/** A server that stayed up this long resets the restart backoff. */
const stableAfterMs = 30_000;

/** Finds the server binary, or throws EngineUnavailableError naming the package to install. */
export function findNatsServer(binary?: string): string {
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (binary !== undefined) {
    if (executable(binary)) return binary;
    throw new EngineUnavailableError(`nats-server not found at ${binary}; ${installHint}`);
  }
  const dirs = [
    ...(process.env['PATH'] ?? '').split(delimiter),
    '/usr/sbin',
    '/usr/local/sbin',
    '/usr/local/bin',
  ];
  for (const dir of dirs) {
    if (dir && executable(join(dir, 'nats-server'))) return join(dir, 'nats-server');
  }
  throw new EngineUnavailableError(`nats-server not found on PATH or in /usr/sbin; ${installHint}`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || !address) throw new EngineUnavailableError('no free loopback port');
  return address.port;
}

/**
 * Finds `setpriv` (util-linux), which starts the server with a parent-death signal so a node killed
 * outright (OOM, SIGKILL) takes its server with it; null when absent.
 */
function findSetpriv(): string | null {
  for (const dir of [...(process.env['PATH'] ?? '').split(delimiter), '/usr/bin', '/bin']) {
    if (!dir) continue;
    try {
      accessSync(join(dir, 'setpriv'), constants.X_OK);
      return join(dir, 'setpriv');
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** Spawns the server; resolves once it logs that it accepts clients. */
function launch(command: readonly string[], logger: Logger): Promise<ChildProcess> {
  const [file = '', ...args] = command;
  const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let tail = '';
    let ready = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new EngineUnavailableError(
          `nats-server did not become ready in ${readyTimeoutMs} ms: ${tail.trim()}`,
        ),
      );
    }, readyTimeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new EngineUnavailableError(`nats-server could not start: ${error.message}`, { cause: error }));
    });
    child.once('exit', (code, signal) => {
      if (ready) return;
      clearTimeout(timer);
      reject(
        new EngineUnavailableError(`nats-server exited (${code ?? signal}) before ready: ${tail.trim()}`),
      );
    });
    let partial = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString();
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        tail = `${tail}${line}\n`.slice(-2_000);
        if (/\[(ERR|FTL)\]/.test(line)) logger.warn({ line }, 'nats-server');
        else logger.debug({ line }, 'nats-server');
        if (!ready && line.includes('Server is ready')) {
          ready = true;
          clearTimeout(timer);
          resolve(child);
        }
      }
    });
  });
}

async function terminate(child: ChildProcess, deadlineMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  }, deadlineMs);
  await exited;
  clearTimeout(timer);
}

export async function startEmbeddedNats(opts: EmbeddedNatsOptions): Promise<EmbeddedNats> {
  const logger = opts.logger ?? pino({ level: 'silent' });
  const binary = findNatsServer(opts.binary);
  // Absolute, so the store is recognised in a stale server's command line whatever the working directory.
  const dataDir = resolve(opts.storeDir, 'jetstream');
  if (opts.existingStore && !existsSync(dataDir)) {
    throw new EngineUnavailableError(`no store at ${opts.storeDir} (it holds no jetstream directory)`);
  }
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw new EngineUnavailableError(`cannot create the store directory ${dataDir}`, { cause: error });
  }
  const pidFile = join(dataDir, 'nats-server.pid');
  const deadlineMs = opts.stopDeadlineMs ?? 10_000;
  await clearStaleServer(dataDir, pidFile, logger, deadlineMs);
  const port = await freePort();
  // The same port on every restart, so the connected client finds the server again.
  const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dataDir, '-P', pidFile];
  const setpriv = findSetpriv();
  if (setpriv === null) {
    logger.warn('setpriv not found (util-linux): a killed node leaves its nats-server until the next start');
  }
  // setpriv execs in place, so the pid (and the pid file) is the server's and its parent is this node.
  const command =
    setpriv === null ? [binary, ...args] : [setpriv, '--pdeathsig', 'KILL', '--', binary, ...args];
  recordOwner(dataDir);
  let child = await launch(command, logger);
  let stopping = false;
  let attempts = 0;
  let startedAt = Date.now();
  const url = `nats://127.0.0.1:${port}`;
  logger.info({ url, pid: child.pid, storeDir: dataDir }, 'embedded nats-server started');

  const killAtExit = () => child.kill('SIGKILL');
  process.once('exit', killAtExit);

  const supervise = (running: ChildProcess) => {
    running.once('exit', (code, signal) => {
      if (stopping) return;
      if (Date.now() - startedAt > stableAfterMs) attempts = 0;
      attempts += 1;
      const delay = Math.min(restartCapMs, 250 * 2 ** Math.min(attempts - 1, 6));
      logger.error({ code, signal, restartInMs: delay }, 'embedded nats-server died; restarting');
      const retry = () => {
        if (stopping) return;
        launch(command, logger).then(
          (next) => {
            if (stopping) {
              void terminate(next, 1_000);
              return;
            }
            child = next;
            startedAt = Date.now();
            logger.info({ url, pid: next.pid }, 'embedded nats-server restarted');
            supervise(next);
          },
          (error: unknown) => {
            attempts += 1;
            logger.error({ err: error }, 'embedded nats-server restart failed');
            setTimeout(retry, Math.min(restartCapMs, 250 * 2 ** Math.min(attempts - 1, 6))).unref();
          },
        );
      };
      setTimeout(retry, delay).unref();
    });
  };
  supervise(child);

  return {
    url,
    get pid() {
      return child.pid ?? 0;
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      process.removeListener('exit', killAtExit);
      await terminate(child, deadlineMs);
      logger.info({ pid: child.pid }, 'embedded nats-server stopped');
    },
  };
}
