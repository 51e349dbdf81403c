/**
 * `npm run bench [-- name ...]`: runs every benchmark (or the named ones) as its own child process,
 * `node --import=tsx scripts/bench/<name>.ts --json`, one after another so they do not share the CPU; passes
 * their lines through, reads each one's last line of rows and prints one table of figures against the
 * baselines measured in the same run. Builds first when dist/ is older than the sources (the benchmarks
 * measure the built `svc serve`). Exit code 1 only when a benchmark failed to run: a missed target is a figure.
 *
 * Options (environment) pass through to every benchmark; the defaults below keep a full run to a few
 * minutes on 2 cores and apply only where the variable is unset. BENCH_TIMEOUT_SECONDS (default 900) per bench.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { exitCodeOf, formatTable, parseBenchOutput, type BenchResult } from './table.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every benchmark, cheapest first, with the settings a full run uses unless the caller set them. */
const benches: Record<string, Record<string, string>> = {
  bus: { BENCH_MESSAGES: '20000', BENCH_ROUNDS: '2' },
  gateway: { BENCH_SECONDS: '3', BENCH_ROUNDS: '1' },
  config: { BENCH_ROUNDS: '7' },
  work: { BENCH_WORK_CREATES: '1000', BENCH_WORK_ITEMS: '100000' },
  webhooks: { BENCH_DELIVERIES: '20000' },
  projections: { BENCH_EVENTS: '100000', BENCH_ROUNDS: '3' },
  'spend-ledger': { BENCH_SPEND_CALLS: '300000' },
  'pages-meaning': { BENCH_PAGES: '10000', BENCH_SEARCHES: '200' },
  limits: { BENCH_UPLOADS: '20' },
  'config-history': { BENCH_MANY: '100' },
  seats: { BENCH_SEATS: '50', BENCH_TURNS: '3', BENCH_SERIAL: '15', BENCH_IDLE: '500' },
  fleet: { BENCH_READS: '150', BENCH_WRITE_SECONDS: '4' },
  dashboard: {},
  'stream-fanout': { BENCH_ROUNDS: '30' },
  'request-log': { BENCH_ROUNDS: '15' },
  toolservers: { BENCH_ROUNDS: '3', BENCH_BOOTS: '2' },
};

/** The newest modification time under `path` (files only), skipping build output and dependencies. */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist' || entry === 'bench' || entry.startsWith('.')) continue;
    latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

function buildIfStale(): void {
  const built = join(root, 'dist', 'scripts', 'svc.js');
  const sources = ['schema', 'bus', 'actors', 'projections', 'http', 'scripts', 'dashboard'].map((d) =>
    join(root, d),
  );
  const stale = !existsSync(built) || Math.max(...sources.map(newest)) > statSync(built).mtimeMs;
  if (!stale) return;
  console.log('bench: dist/ is older than the sources; running `npm run build` first');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
}

async function runOne(name: string): Promise<BenchResult> {
  const env: Record<string, string | undefined> = { ...benches[name], ...process.env };
  const child = spawn(process.execPath, ['--import=tsx', join('scripts', 'bench', `${name}.ts`), '--json'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  createInterface({ input: child.stdout }).on('line', (line) => {
    out += `${line}\n`;
    // The rows line is for the table; the rest is the benchmark's own account.
    if (!line.startsWith('[{')) console.log(`  ${line}`);
  });
  const limit = Number(process.env['BENCH_TIMEOUT_SECONDS'] ?? 900) * 1000;
  // Killed by its pid, with its own children left to its handlers (SIGTERM first).
  const timer = setTimeout(() => child.kill('SIGTERM'), limit);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  await new Promise((resolve) => setImmediate(resolve));
  return parseBenchOutput(name, out, code);
}

async function main(): Promise<void> {
  const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const unknown = asked.filter((a) => !(a in benches));
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(benches).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  buildIfStale();
  const names = asked.length > 0 ? asked : Object.keys(benches);
  const results: BenchResult[] = [];
  const started = performance.now();
  for (const name of names) {
    console.log(`== ${name}`);
    const t0 = performance.now();
    const result = await runOne(name);
    console.log(`== ${name}: ${result.error ?? 'done'} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    results.push(result);
  }
  console.log(
    `\nfigures against baselines measured in the same run (${((performance.now() - started) / 1000).toFixed(0)} s):\n`,
  );
  console.log(formatTable(results));
  process.exitCode = exitCodeOf(results);
}

await main();
