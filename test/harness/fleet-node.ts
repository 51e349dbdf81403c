/**
 * One `svc serve` child of a fleet: the JetStream engine at `natsUrl`, a free port, operator token `TOKEN`,
 * node id `id`; `node` adds keys to the Tier A `node` map (a short `seat_lease_seconds` by default, so leases
 * and presence move within a test); `store` gives it a `stream.store_dir` (projection checkpoints). Resolves
 * once it serves; killed by pid at the test's end. `restartFleetNode` serves the same file again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { localProviders } from '../fixtures/llm/providers.js';
import { call } from './api.js';
import { freePort, runSvc, type SvcChild } from './child.js';
import { TOKEN } from './serve-node.js';

export interface FleetNode {
  readonly id: string;
  readonly url: string;
  readonly run: SvcChild;
  /** The Tier A file it serves (its store, when it has one, is beside it). */
  readonly configFile: string;
}

export async function startFleetNode(
  t: Test,
  id: string,
  natsUrl: string,
  opts: { leaseSeconds?: number; node?: string; queue?: string; extra?: string; store?: boolean } = {},
): Promise<FleetNode> {
  const dir = mkdtempSync(join(tmpdir(), `svc-fleet-${id}-`));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  const port = await freePort();
  const configFile = join(dir, 'config.yaml');
  writeFileSync(
    configFile,
    [
      `providers: {queue: {type: jetstream, url: "${natsUrl}"${opts.queue ? `, ${opts.queue}` : ''}}}`,
      `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
      `node: {id: ${id}, seat_lease_seconds: ${opts.leaseSeconds ?? 3}${opts.node ? `, ${opts.node}` : ''}}`,
      opts.store ? `stream: {store_dir: "${join(dir, 'data')}"}` : '',
      opts.extra ?? '',
    ].join('\n'),
  );
  return { id, url: `http://127.0.0.1:${port}`, configFile, run: await serve(t, configFile) };
}

/** `node` served again from its own file and store (after it was killed); same id and address. */
export async function restartFleetNode(t: Test, node: FleetNode): Promise<FleetNode> {
  return { ...node, run: await serve(t, node.configFile) };
}

async function serve(t: Test, configFile: string): Promise<SvcChild> {
  const run = runSvc(['serve', '--config', configFile], { SVC_TOKEN: TOKEN });
  t.teardown(() => run.kill('SIGKILL'));
  await run.waitForLog((line) => line.msg === 'node serving');
  return run;
}

/**
 * Stores the fleet tests' company through `node` (one seat, Ada; a provider address where nothing answers,
 * so no turn runs) and waits for `node` to apply it; a peer started after it applies it as it starts.
 */
export async function storeFleetCompany(t: Test, node: FleetNode): Promise<void> {
  const put = await call(node.url, 'PUT', '/config', {
    name: 'Acme',
    timezone: 'UTC',
    providers: localProviders('http://127.0.0.1:9/v1'),
    roles: [{ name: 'Ada' }],
  });
  t.equal(put.status, 201, 'the company is stored');
  await node.run.waitForLog((l) => l.msg === 'config applied');
}

/** A fleet converges on its own timers (renewal a third of the lease): its tests poll. */
export { until } from './until.js';
