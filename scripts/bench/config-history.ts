/**
 * Boot memory against configuration history (not a test; issue "memory grows with configuration
 * history"): two stores on the memory engine, one given 10 revisions and one given 1,000, each of a
 * ~200 KB company document written by `PUT /config` to a `svc serve` child. Each store is then booted by
 * a fresh `svc serve` child, and its RSS once the active revision is applied is printed with the ratio
 * of the two. Memory bounded by configuration reads a ratio near 1.
 *
 * Run (from the repository root, after `npm run build`: the child is `dist/scripts/svc.js`):
 *   TS_NODE_TRANSPILE_ONLY=1 node --import @isaacs/ts-node-temp-fork-for-pr-2009/import scripts/bench/config-history.ts
 * Options (environment): BENCH_FEW (10), BENCH_MANY (1000), BENCH_DOC_KB (200).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const few = Number(process.env.BENCH_FEW ?? 10);
const many = Number(process.env.BENCH_MANY ?? 1000);
const docBytes = Number(process.env.BENCH_DOC_KB ?? 200) * 1024;
const host = '127.0.0.1';
const token = 'bench-history-token-0123456789';
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const svcBin = join(root, 'dist', 'scripts', 'svc.js');

async function freePort(): Promise<number> {
  const server = createServer().listen(0, host);
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** The child's resident set in MiB, from /proc. */
function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

interface Child {
  readonly proc: ChildProcess;
  readonly port: number;
  /** Resolves once a log line (JSON on stdout) matches `match`. */
  waitFor(match: (line: Record<string, unknown>) => boolean, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

async function startChild(dir: string): Promise<Child> {
  const port = await freePort();
  const configFile = join(dir, 'config.yaml');
  writeFileSync(
    configFile,
    [
      'providers: {queue: {type: memory}}',
      `api: {host: ${host}, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
      `stream: {store_dir: ${join(dir, 'data')}}`,
    ].join('\n'),
  );
  const proc = spawn(process.execPath, [svcBin, 'serve', '--config', configFile], {
    cwd: root,
    env: { ...process.env, SVC_TOKEN: token },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: proc.stdout }).on('line', (text) => {
    try {
      lines.push(JSON.parse(text) as Record<string, unknown>);
    } catch {
      return;
    }
    for (const w of waiters.splice(0)) w();
  });
  return {
    proc,
    port,
    async waitFor(match, ms = 120_000) {
      const deadline = Date.now() + ms;
      while (!lines.some(match)) {
        if (Date.now() > deadline || proc.exitCode !== null) throw new Error('svc serve did not get there');
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 500).unref();
        });
      }
    },
    async stop() {
      if (proc.exitCode !== null) return;
      const exited = once(proc, 'exit');
      proc.kill('SIGTERM');
      const cut = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(cut);
    },
  };
}

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
    const writer = await startChild(dir);
    try {
      await writer.waitFor((l) => l['msg'] === 'node serving');
      for (let n = 0; n < count; n += 1) {
        const put = await fetch(`http://${host}:${writer.port}/config`, {
          method: 'PUT',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'x-summary': `revision ${n}`,
          },
          body: JSON.stringify(document(n)),
        });
        if (put.status !== 201) throw new Error(`PUT ${n} answered ${put.status}: ${await put.text()}`);
        await put.arrayBuffer();
      }
    } finally {
      await writer.stop();
    }

    const started = performance.now();
    const booted = await startChild(dir);
    const pid = booted.proc.pid!;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 20);
    try {
      await booted.waitFor((l) => l['msg'] === 'node serving');
      await booted.waitFor((l) => l['msg'] === 'config applied');
      const bootSeconds = (performance.now() - started) / 1000;
      // The figure is what the booted node keeps, so let its collector finish with the replay first.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      clearInterval(sampler);
      const rss = rssMiB(pid);
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
  if (!existsSync(svcBin)) throw new Error(`${svcBin} is missing: run \`npm run build\` first`);
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
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
