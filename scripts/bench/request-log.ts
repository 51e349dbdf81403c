/**
 * Request log benchmark (not a test): the CPU time of one request line as the node writes it — the process
 * logger of `svc serve` (scripts/logger.ts: JSON to standard output, redaction, the repeated-key check, the
 * batched writes) through a request's child logger (route and operator bound, as http/dispatch.ts binds them),
 * `{method, path, status, ms}` and the message `request`. Baseline, in the same process and alternated round
 * by round: `JSON.stringify` of the whole line's object and its UTF-8 bytes (the least a JSON line can cost).
 * The measuring process is a child of this one whose standard output is /dev/null, so the lines are written
 * for real and cost nothing to read.
 * Prints the median CPU time per line over BENCH_ROUNDS rounds (default 15) of BENCH_LINES lines (default
 * 50,000) and the ratio. `--json`: the last stdout line is one JSON array of rows.
 *
 * Run (from the repository root): node --import=tsx scripts/bench/request-log.ts [--json]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../logger.js';
import { report, row } from './table.js';

const lines = Number(process.env['BENCH_LINES'] ?? 50_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 15);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** CPU µs (user and system) of `run`. */
function cpu(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

/** The measuring child: its stdout is /dev/null; the figures go to the parent on stderr as one JSON line. */
async function measure(): Promise<void> {
  const logger = createLogger({ debug: false, node: 'node-a', env: { SVC_LOG_FORMAT: 'json' } });
  const log = logger.child({ route: '/config/revisions', operator: 'ops' });
  const paths = ['/config/revisions?limit=1', '/config/revisions?limit=2', '/config/revisions'];
  let sink = 0;
  const logged = (): void => {
    for (let i = 0; i < lines; i++)
      log.info({ method: 'GET', path: paths[i % 3]!, status: 200, ms: i & 3 }, 'request');
  };
  const stringified = (): void => {
    for (let i = 0; i < lines; i++) {
      const line = {
        level: 30,
        time: Date.now(),
        node: 'node-a',
        route: '/config/revisions',
        operator: 'ops',
        method: 'GET',
        path: paths[i % 3]!,
        status: 200,
        ms: i & 3,
        msg: 'request',
      };
      sink += Buffer.byteLength(`${JSON.stringify(line)}\n`);
    }
  };
  const logTimes: number[] = [];
  const baseTimes: number[] = [];
  for (let r = 0; r < rounds + 2; r++) {
    const l = cpu(logged);
    // The batched writes go out between rounds, as between requests: let them.
    await new Promise((resolve) => setTimeout(resolve, 60));
    const b = cpu(stringified);
    if (r < 2) continue;
    logTimes.push(l / lines);
    baseTimes.push(b / lines);
  }
  process.stderr.write(`${JSON.stringify({ log: median(logTimes), base: median(baseTimes), sink })}\n`);
}

async function main(): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--measure'], {
    stdio: ['ignore', openSync('/dev/null', 'w'), 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const last = err.trim().split('\n').pop() ?? '';
  if (code !== 0) throw new Error(`the measuring process exited ${code}:\n${err}`);
  const { log, base } = JSON.parse(last) as { log: number; base: number };
  console.log(
    `request log line: ${log.toFixed(2)} CPU µs; JSON.stringify of the line ${base.toFixed(2)} µs; ` +
      `ratio ${(log / base).toFixed(2)} (${rounds} rounds of ${lines} lines)`,
  );
  const r = row('request-log', 'one request line through the process logger', log, 'µs', base);
  report([{ ...r, figure: Math.round(log * 100) / 100, baseline: Math.round(base * 100) / 100 }]);
}

if (process.argv.includes('--measure')) await measure();
else await main();
