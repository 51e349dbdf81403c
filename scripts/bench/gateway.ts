/**
 * Gateway benchmark: requests/s of `GET /health` and of an authenticated 404 through the gateway, against a
 * bare hello-world server on the same transport (http/bench-baseline.ts) measured in the same run, with the ratios (target: /health ≥ 0.6).
 *
 * Run (from the repository root):
 *   TS_NODE_TRANSPILE_ONLY=1 node --import @isaacs/ts-node-temp-fork-for-pr-2009/import scripts/bench/gateway.ts
 * Options (environment): BENCH_SECONDS (default 5 per measurement), BENCH_CONNECTIONS (default 64),
 * BENCH_ROUNDS (default 2; each target is measured that many times, interleaved, and the best kept).
 *
 * Load generator: Debian's `wrk`, installed with apt-get when missing (the script says so). It runs with
 * fewer threads than there are cores, so the server (one Node thread) keeps most of the CPU.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { startBareHelloServer } from '../../http/bench/bare-hello.js';
import { startGateway } from '../../http/index.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const threads = Math.max(1, Math.floor(availableParallelism() / 2));
const token = 'bench-token-0123456789abcdef0123456789';

function ensureWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return;
  } catch (err) {
    // wrk --version exits 1 after printing its version; only a missing binary is ENOENT.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return;
  }
  console.log('setup: wrk is missing; installing the Debian package wrk with apt-get');
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const run = (args: string[]): void => {
    const [cmd, ...rest] = [...sudo, ...args];
    execFileSync(cmd!, rest, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  };
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'wrk']);
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Runs wrk against `url` and returns its requests/s; non-2xx answers are expected for the 404 case. */
async function wrk(url: string, headers: string[] = []): Promise<number> {
  const args = ['-t', String(threads), '-c', String(connections), '-d', `${seconds}s`, '--latency'];
  for (const h of headers) args.push('-H', h);
  // wrk's child runs asynchronously so this process's event loop keeps serving the requests.
  const child = spawn('wrk', [...args, url], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const match = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (code !== 0 || !match) throw new Error(`wrk failed (exit ${code}):\n${out}`);
  return Number(match[1]);
}

async function main(): Promise<void> {
  ensureWrk();
  const host = '127.0.0.1';
  const bare = await startBareHelloServer(host, await freePort());
  const health = {
    status: 'ok',
    node: 'bench-0',
    configured: true,
    version: '0.0.0',
    started_at: new Date().toISOString(),
    queue: 'memory',
    clients: 0,
    event_history_seconds: 2_592_000,
    spend_history_seconds: 15_638_400,
    in_flight: 0,
    shutting_down: false,
    posture: 'serve',
    applied_epoch: 1,
    seats: [],
    seeded_from: { nodes: [], complete: true },
  };
  const gw = await startGateway({
    host,
    port: await freePort(),
    ingress: true,
    auth: { disabled: false, allowAnonymousRead: true, tokens: [{ id: 'bench', token }] },
    probes: {
      health: () => health,
      ready: () => ({ ready: true }),
      draining: () => false,
      configured: () => true,
    },
    routes: [],
  });
  console.log(
    `wrk: ${threads} thread(s) of ${availableParallelism()} cores, ${connections} connections, ${seconds} s x ${rounds} rounds`,
  );

  const targets = {
    bare: () => wrk(`http://${host}:${bare.port}/`),
    health: () => wrk(`http://${host}:${gw.port}/health`),
    auth404: () => wrk(`http://${host}:${gw.port}/no/such/route`, [`Authorization: Bearer ${token}`]),
  };
  const best: Record<keyof typeof targets, number> = { bare: 0, health: 0, auth404: 0 };
  for (let round = 0; round < rounds; round++) {
    for (const name of Object.keys(targets) as Array<keyof typeof targets>) {
      best[name] = Math.max(best[name], await targets[name]());
    }
  }
  bare.close();
  await gw.close();

  const ratio = (n: number): string => (n / best.bare).toFixed(2);
  console.log(`bare uWS hello-world   ${best.bare.toFixed(0).padStart(9)} req/s`);
  console.log(
    `gateway GET /health    ${best.health.toFixed(0).padStart(9)} req/s   ratio ${ratio(best.health)}`,
  );
  console.log(
    `gateway auth 404       ${best.auth404.toFixed(0).padStart(9)} req/s   ratio ${ratio(best.auth404)}`,
  );
  const met = best.health / best.bare >= 0.6;
  console.log(`target /health >= 0.60 of bare: ${met ? 'met' : 'NOT met'}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
