/**
 * `svc serve` children over one store directory that outlives them: boot, stop, change the Tier A file
 * (a keyring rotation), boot again. Each child runs on a free port with token `TOKEN` (id `ops`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { freePort, runSvc, type SvcChild } from './child.js';
import { TOKEN } from './serve-node.js';

export { TOKEN };

export interface StoreDir {
  readonly dir: string;
  readonly storeDir: string;
  readonly configFile: string;
  /** `providers.queue.type`: `memory`, or `jetstream-embedded` (its nats-server stores under `storeDir`). */
  readonly queue: 'memory' | 'jetstream-embedded';
}

export function storeDir(t: Test, queue: StoreDir['queue'] = 'memory'): StoreDir {
  const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  return { dir, storeDir: join(dir, 'data'), configFile: join(dir, 'config.yaml'), queue };
}

export interface BootedNode {
  readonly run: SvcChild;
  readonly url: string;
  /** A request with the operator token (unless `auth` is null or another header value). */
  call(
    method: string,
    path: string,
    opts?: { body?: string | Buffer; auth?: string | null; headers?: Record<string, string> },
  ): Promise<Response>;
  /** SIGTERM, and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Writes the Tier A file (`extra` appended) and starts a node; resolves once it serves. `port` is for a
 * node that must know its own URL before it starts (a restart on the same one; `SVC_SANDBOX_OTEL_RECEIVER_URL`).
 */
export async function bootNode(
  t: Test,
  store: StoreDir,
  extra: string,
  env: Record<string, string> = {},
  port?: number,
): Promise<BootedNode> {
  port ??= await freePort();
  const run = startChild(t, store, extra, env, port);
  await run.waitForLog((line) => line.msg === 'node serving');
  return booted(run, port);
}

/** Starts a child without waiting (for a boot that is expected to fail). */
export function startChild(
  t: Test,
  store: StoreDir,
  extra: string,
  env: Record<string, string>,
  port: number,
): SvcChild {
  writeFileSync(
    store.configFile,
    [
      `providers: {queue: {type: ${store.queue}}}`,
      `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
      `stream: {store_dir: ${store.storeDir}}`,
      extra,
    ].join('\n'),
  );
  const run = runSvc(['serve', '--config', store.configFile], { SVC_TOKEN: TOKEN, ...env });
  t.teardown(() => run.kill('SIGKILL'));
  return run;
}

function booted(run: SvcChild, port: number): BootedNode {
  const url = `http://127.0.0.1:${port}`;
  return {
    run,
    url,
    call(method, path, opts = {}) {
      const auth = opts.auth === undefined ? `Bearer ${TOKEN}` : opts.auth;
      return fetch(`${url}${path}`, {
        method,
        headers: { ...(auth ? { authorization: auth } : {}), ...opts.headers },
        ...(opts.body !== undefined ? { body: opts.body } : {}),
      });
    },
    async stop() {
      run.kill('SIGTERM');
      return run.exited;
    },
  };
}
