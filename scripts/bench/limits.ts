/**
 * Memory under large unauthenticated bodies (not a test): a `svc serve` child on loopback, then three
 * rounds of 40 concurrent 24 MiB webhook uploads, printing the child's RSS before, at its peak during,
 * and after each round, with the answers counted:
 *   unsigned   no signature header, secret configured   -> 401 from the headers, the body never read
 *   no-secret  a receiver without its secret             -> 503 from the headers, the body never read
 *   forged     a present but wrong signature             -> read up to the listener's 64 MiB budget
 *                                                            (the rest 503 `overloaded`), then 401
 * Answers are counted by status; `reset` is a sender that was still writing when the node answered and
 * closed, and saw the connection reset before it read the answer (the transport does not linger).
 * Every round is bounded (40 requests, 60 s each). Then `/health` p99 under 2,000 slow connections
 * (slow-connections.ts): each sends a partial request head and a header line every few seconds, never
 * finishing it, while a separate client times `/health`; printed with the same p99 without them, and the
 * ratio. The child is stopped by pid at the end, every socket destroyed.
 * Boot RSS after 1,000 configuration revisions is config-history.ts.
 *
 * Run (from the repository root, after `npm run build`): node --import=tsx scripts/bench/limits.ts [--json]
 * Options (environment): BENCH_UPLOADS (40), BENCH_BODY_MIB (24), BENCH_SLOW (2000; lowered to what the
 * open-file limit allows, printed), BENCH_SLOW_SECONDS (5, each measurement), BENCH_SLOW_LINE_MS (3000),
 * BENCH_PARTS (`uploads,slow`: which parts run).
 * Rows: each round's peak RSS against the RSS before the first round; `/health` p99 under the slow
 * connections against the p99 without them.
 */
import { request } from 'node:http';
import { putCompany, rssMiB, startServe } from './node.js';
import { slowConnectionRows } from './slow-connections.js';
import { report, row, type BenchRow } from './table.js';

const uploads = Number(process.env.BENCH_UPLOADS ?? 40);
const bodyBytes = Number(process.env.BENCH_BODY_MIB ?? 24) * 1024 * 1024;
const host = '127.0.0.1';
const secret = 'bench-limits-codehost-a-secret';
const chunk = Buffer.alloc(1024 * 1024, 0x61);
const parts = new Set((process.env.BENCH_PARTS ?? 'uploads,slow').split(',').map((p) => p.trim()));

const rows: BenchRow[] = [];

/** Streams `bodyBytes` to `path` (1 MiB at a time, with backpressure) until answered; the status or why not. */
function upload(port: number, path: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const req = request({
      host,
      port,
      path,
      method: 'POST',
      agent: false,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(bodyBytes) },
    });
    let settled = false;
    let sent = 0;
    const done = (outcome: string): void => {
      if (settled) return;
      settled = true;
      req.destroy();
      resolve(outcome);
    };
    req.on('response', (res) => {
      res.resume();
      done(String(res.statusCode));
    });
    // The node answers and closes while the upload goes on: the sender may see the reset before the answer.
    req.on('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'EPIPE' || err.code === 'ECONNRESET' ? 'reset' : `error ${err.code ?? err.message}`),
    );
    req.setTimeout(60_000, () => done('timeout'));
    const pump = (): void => {
      while (!settled && sent < bodyBytes) {
        const n = Math.min(chunk.length, bodyBytes - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      if (!settled) req.end();
    };
    pump();
  });
}

async function round(
  baseline: number,
  pid: number,
  port: number,
  name: string,
  path: string,
  headers: Record<string, string>,
): Promise<void> {
  const before = rssMiB(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 20);
  const started = performance.now();
  const outcomes = await Promise.all(Array.from({ length: uploads }, () => upload(port, path, headers)));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssMiB(pid));
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
  const answers = [...counts].map(([o, n]) => `${o}×${n}`).join(' ');
  console.log(
    `${name.padEnd(10)} RSS before ${before.toFixed(0).padStart(5)} MiB, peak ${peak.toFixed(0).padStart(5)} MiB, ` +
      `after ${rssMiB(pid).toFixed(0).padStart(5)} MiB; ${seconds.toFixed(1)} s; answers ${answers}`,
  );
  rows.push(
    row(
      'limits',
      `peak RSS, ${uploads} ${name} uploads of ${bodyBytes / 1048576} MiB`,
      peak,
      'MiB',
      baseline,
    ),
  );
}

async function main(): Promise<void> {
  const node = await startServe();
  const { pid, port } = node;
  try {
    await putCompany(node, {
      name: 'Bench',
      integrations: { codehost_a: { webhook_secret: secret } },
      roles: [{ name: 'Ada' }],
    });
    console.log(
      `svc serve pid ${pid} on ${host}:${port}; ${uploads} concurrent uploads of ${bodyBytes} bytes each`,
    );
    const baseline = rssMiB(pid);
    const event = { 'x-codehost-a-event': 'issues', 'x-codehost-a-delivery': 'bench' };
    if (parts.has('uploads')) {
      await round(baseline, pid, port, 'unsigned', '/webhooks/codehost-a', event);
      await round(baseline, pid, port, 'no-secret', '/webhooks/codehost-b', {
        'webhook-id': 'bench',
        'webhook-signature': 'v1,x',
      });
      await round(baseline, pid, port, 'forged', '/webhooks/codehost-a', {
        ...event,
        'x-codehost-a-signature-256': `sha256=${'0'.repeat(64)}`,
      });
    }
    if (parts.has('slow')) {
      rows.push(
        ...(await slowConnectionRows({
          host,
          port,
          slow: Number(process.env.BENCH_SLOW ?? 2000),
          seconds: Number(process.env.BENCH_SLOW_SECONDS ?? 5),
          lineEveryMs: Number(process.env.BENCH_SLOW_LINE_MS ?? 3000),
        })),
      );
    }
  } finally {
    await node.stop();
  }
  report(rows);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
