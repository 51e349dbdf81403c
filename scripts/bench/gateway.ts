/**
 * Gateway benchmark: requests/s of `GET /health`, of an authenticated 404, and of an authenticated small read
 * (`GET /config/revisions?limit=1`: guard, route, handler, answer and its request log line, as every API call
 * of the dashboard or the CLI) from a `svc serve` child, against a bare hello-world on the same HTTP transport
 * (http/bench/bare-hello.ts, in this process) measured in the same run, with the ratios (target: /health >= 0.6).
 *
 * Run (from the repository root, after `npm run build`): node --import=tsx scripts/bench/gateway.ts [--json]
 * Options (environment): BENCH_SECONDS (default 5 per measurement), BENCH_CONNECTIONS (default 64),
 * BENCH_ROUNDS (default 2; each target is measured that many times, interleaved, and the best kept).
 *
 * Load generator: Debian's `wrk`, installed with apt-get when missing (the script says so). It runs with
 * fewer threads than there are cores, so the server (one Node thread) keeps most of the CPU.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { startBareHelloServer } from '../../http/bench/bare-hello.js';
import { freePort, startServe, TOKEN } from './node.js';
import { ensureWrk, wrkThreads as threads } from './wrk.js';
import { report, row } from './table.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);

/**
 * Runs wrk against `url` and returns its requests/s. Non-2xx answers are expected for the 404 case; with
 * `allOk` any is a failure (a read refused with a 401 would be measured as a read).
 */
async function wrk(url: string, headers: string[] = [], allOk = false): Promise<number> {
  const args = ['-t', String(threads), '-c', String(connections), '-d', `${seconds}s`, '--latency'];
  for (const h of headers) args.push('-H', h);
  // wrk's child runs asynchronously so this process's event loop keeps serving the requests.
  const child = spawn('wrk', [...args, url], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const match = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (code !== 0 || !match) throw new Error(`wrk failed (exit ${code}):\n${out}`);
  if (allOk && /Non-2xx or 3xx responses/.test(out)) throw new Error(`${url} was not answered 200:\n${out}`);
  return Number(match[1]);
}

async function main(): Promise<void> {
  ensureWrk();
  const host = '127.0.0.1';
  const bare = await startBareHelloServer(host, await freePort());
  const node = await startServe();
  console.log(
    `wrk: ${threads} thread(s) of ${availableParallelism()} cores, ${connections} connections, ${seconds} s x ${rounds} rounds`,
  );

  const targets = {
    bare: () => wrk(`http://${host}:${bare.port}/`),
    health: () => wrk(`http://${host}:${node.port}/health`),
    auth404: () => wrk(`http://${host}:${node.port}/no/such/route`, [`Authorization: Bearer ${TOKEN}`]),
    authRead: () =>
      wrk(`http://${host}:${node.port}/config/revisions?limit=1`, [`Authorization: Bearer ${TOKEN}`], true),
  };
  const best: Record<keyof typeof targets, number> = { bare: 0, health: 0, auth404: 0, authRead: 0 };
  try {
    for (let round = 0; round < rounds; round++) {
      for (const name of Object.keys(targets) as Array<keyof typeof targets>) {
        best[name] = Math.max(best[name], await targets[name]());
      }
    }
  } finally {
    bare.close();
    await node.stop();
  }

  const ratio = (n: number): string => (n / best.bare).toFixed(2);
  console.log(`bare uWS hello-world    ${best.bare.toFixed(0).padStart(9)} req/s`);
  console.log(
    `svc serve GET /health   ${best.health.toFixed(0).padStart(9)} req/s   ratio ${ratio(best.health)}`,
  );
  console.log(
    `svc serve auth 404      ${best.auth404.toFixed(0).padStart(9)} req/s   ratio ${ratio(best.auth404)}`,
  );
  console.log(
    `svc serve auth read     ${best.authRead.toFixed(0).padStart(9)} req/s   ratio ${ratio(best.authRead)}`,
  );
  const met = best.health / best.bare >= 0.6;
  console.log(`target /health >= 0.60 of bare: ${met ? 'met' : 'NOT met'}`);
  report([
    row('gateway', 'svc serve GET /health', best.health, 'req/s', best.bare, '>= 0.6'),
    row('gateway', 'svc serve authenticated 404', best.auth404, 'req/s', best.bare),
    row(
      'gateway',
      'svc serve authenticated GET /config/revisions?limit=1',
      best.authRead,
      'req/s',
      best.bare,
    ),
  ]);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
