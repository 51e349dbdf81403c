/**
 * Boot memory against configuration history (not a test; issue "memory grows with configuration
 * history"): two stores on the memory engine, one given 10 revisions and one given 1,000, each of a
 * ~200 KB company document written by `PUT /config` to a `svc serve` child. Each store is then booted by
 * a fresh `svc serve` child, and its RSS once the active revision is applied is printed with the ratio
 * of the two. Memory bounded by configuration reads a ratio near 1.
 *
 * Run (from the repository root, after `npm run build`): node --import=tsx scripts/bench/config-history.ts [--json]
 * Options (environment): BENCH_FEW (10), BENCH_MANY (1000), BENCH_DOC_KB (200).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auth, rssMiB, startServe } from './node.js';
import { report, row } from './table.js';

const few = Number(process.env.BENCH_FEW ?? 10);
const many = Number(process.env.BENCH_MANY ?? 1000);
const docBytes = Number(process.env.BENCH_DOC_KB ?? 200) * 1024;

/** A ~`docBytes` company document unique to revision `n`: a few seats and a long mission text. */
function document(n: number): Record<string, unknown> {
  const block = createHash('sha256').update(`revision ${n}`).digest('hex');
  return {
    name: 'Bench History',
    mission: `revision ${n} ` + block.repeat(Math.ceil(docBytes / block.length)),
    roles: [{ name: 'Ada' }, { name: 'Grace', kind: 'human', contact: { chat_user_id: 'U1' } }],
  };
}

/** Writes `count` revisions to a fresh store through one child, then boots a second child on it. */
async function bootRss(count: number): Promise<{ rss: number; peak: number; bootSeconds: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-history-'));
  try {
    const writer = await startServe({ dir });
    try {
      for (let n = 0; n < count; n += 1) {
        const put = await fetch(`${writer.url}/config`, {
          method: 'PUT',
          headers: { ...auth, 'content-type': 'application/json', 'x-summary': `revision ${n}` },
          body: JSON.stringify(document(n)),
        });
        if (put.status !== 201) throw new Error(`PUT ${n} answered ${put.status}: ${await put.text()}`);
        await put.arrayBuffer();
      }
    } finally {
      await writer.stop();
    }

    const started = performance.now();
    let peak = 0;
    let sampler: NodeJS.Timeout | undefined;
    const booted = await startServe({
      dir,
      onSpawn: (pid) => (sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 20)),
    });
    try {
      await booted.waitForLog((l) => l.msg === 'config applied');
      const bootSeconds = (performance.now() - started) / 1000;
      // The figure is what the booted node keeps, so let its collector finish with the replay first.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      clearInterval(sampler);
      const rss = rssMiB(booted.pid);
      return { rss, peak: Math.max(peak, rss), bootSeconds };
    } finally {
      clearInterval(sampler);
      await booted.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const small = await bootRss(few);
  console.log(
    `boot RSS after ${String(few).padStart(5)} revisions of ${docBytes / 1024} KB: ${small.rss.toFixed(0).padStart(5)} MiB ` +
      `(peak ${small.peak.toFixed(0)} MiB, booted in ${small.bootSeconds.toFixed(1)} s)`,
  );
  const large = await bootRss(many);
  console.log(
    `boot RSS after ${String(many).padStart(5)} revisions of ${docBytes / 1024} KB: ${large.rss.toFixed(0).padStart(5)} MiB ` +
      `(peak ${large.peak.toFixed(0)} MiB, booted in ${large.bootSeconds.toFixed(1)} s)`,
  );
  console.log(
    `ratio ${many}/${few}: ${(large.rss / small.rss).toFixed(2)} (peak ${(large.peak / small.peak).toFixed(2)})`,
  );
  report([
    row('config-history', `boot RSS after ${many} revisions (vs ${few})`, large.rss, 'MiB', small.rss),
    row('config-history', `boot peak RSS after ${many} revisions (vs ${few})`, large.peak, 'MiB', small.peak),
    row(
      'config-history',
      `boot time after ${many} revisions (vs ${few})`,
      large.bootSeconds,
      's',
      small.bootSeconds,
    ),
  ]);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
