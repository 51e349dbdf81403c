/** A `svc serve` child on a free port with a temp store and one operator token. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { freePort, runSvc, type SvcChild } from './child.js';

export const TOKEN = 'serve-test-token-0123456789';

export interface ServedNode {
  readonly run: SvcChild;
  readonly port: number;
  readonly dir: string;
  readonly configFile: string;
  readonly url: string;
}

/**
 * `seed` writes into the store directory before the node first opens it: what only an older history would
 * hold (a seat log's question), without a second start.
 */
export async function startNode(
  t: Test,
  extra = '',
  queue = 'memory',
  env: Record<string, string> = {},
  seed?: (storeDir: string) => Promise<void>,
): Promise<ServedNode> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-serve-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  const port = await freePort();
  const configFile = join(dir, 'config.yaml');
  writeFileSync(
    configFile,
    [
      `providers: {queue: {type: ${queue}}}`,
      `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
      `stream: {store_dir: ${join(dir, 'data')}}`,
      extra,
    ].join('\n'),
  );
  await seed?.(join(dir, 'data'));
  const run = runSvc(['serve', '--config', configFile], { ...env, SVC_TOKEN: TOKEN });
  t.teardown(() => run.kill('SIGKILL'));
  await run.waitForLog((line) => line.msg === 'node serving');
  return { run, port, dir, configFile, url: `http://127.0.0.1:${port}` };
}

/**
 * Serves a stopped node's store and Tier A file again, as the same node; resolves once it serves. `env` adds
 * to its environment (a second token's variable).
 */
export async function serveAgain(
  t: Test,
  node: ServedNode,
  env: Record<string, string> = {},
): Promise<SvcChild> {
  const again = runSvc(['serve', '--config', node.configFile], { ...env, SVC_TOKEN: TOKEN });
  t.teardown(() => again.kill('SIGKILL'));
  await again.waitForLog((line) => line.msg === 'node serving');
  return again;
}

/** Stops `run` (a process of `node`) with `signal`, asserts how it ended, and serves the same store again. */
export async function restartNode(
  t: Test,
  node: ServedNode,
  run: SvcChild,
  signal: 'SIGTERM' | 'SIGKILL',
): Promise<SvcChild> {
  run.kill(signal);
  t.equal(await run.exited, signal === 'SIGTERM' ? 0 : null, `${signal}: the node stopped`);
  return serveAgain(t, node);
}
