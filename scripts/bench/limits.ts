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
 * Every round is bounded (40 requests, 60 s each); the child is stopped by pid at the end.
 *
 * Run (from the repository root, after `npm run build`: the child is `dist/scripts/svc.js`):
 *   TS_NODE_TRANSPILE_ONLY=1 node --import @isaacs/ts-node-temp-fork-for-pr-2009/import scripts/bench/limits.ts
 * Options (environment): BENCH_UPLOADS (40), BENCH_BODY_MIB (24).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const uploads = Number(process.env.BENCH_UPLOADS ?? 40);
const bodyBytes = Number(process.env.BENCH_BODY_MIB ?? 24) * 1024 * 1024;
const host = '127.0.0.1';
const token = 'bench-limits-token-0123456789';
const secret = 'bench-limits-codehost-a-secret';
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const svcBin = join(root, 'dist', 'scripts', 'svc.js');
const chunk = Buffer.alloc(1024 * 1024, 0x61);

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
  /** Resolves with the first log line `match` accepts (JSON lines on stdout). */
  waitFor(match: (line: Record<string, unknown>) => boolean, ms?: number): Promise<void>;
}

function startChild(configFile: string): Child {
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
    async waitFor(match, ms = 30_000) {
      const deadline = Date.now() + ms;
      while (!lines.some(match)) {
        if (Date.now() > deadline || proc.exitCode !== null) throw new Error('svc serve did not get there');
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 500).unref();
        });
      }
    },
  };
}

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
}

async function main(): Promise<void> {
  if (!existsSync(svcBin)) throw new Error(`${svcBin} is missing: run \`npm run build\` first`);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-limits-'));
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
  const child = startChild(configFile);
  const pid = child.proc.pid!;
  try {
    await child.waitFor((l) => l['msg'] === 'node serving');
    const company = {
      name: 'Bench',
      integrations: { codehost_a: { webhook_secret: secret } },
      roles: [{ name: 'Ada' }],
    };
    const put = await fetch(`http://${host}:${port}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-summary': 'bench' },
      body: JSON.stringify(company),
    });
    if (put.status !== 201) throw new Error(`PUT /config answered ${put.status}: ${await put.text()}`);
    await child.waitFor((l) => l['msg'] === 'config applied');
    console.log(
      `svc serve pid ${pid} on ${host}:${port}; ${uploads} concurrent uploads of ${bodyBytes} bytes each`,
    );
    const event = { 'x-codehost-a-event': 'issues', 'x-codehost-a-delivery': 'bench' };
    await round(pid, port, 'unsigned', '/webhooks/codehost-a', event);
    await round(pid, port, 'no-secret', '/webhooks/codehost-b', {
      'webhook-id': 'bench',
      'webhook-signature': 'v1,x',
    });
    await round(pid, port, 'forged', '/webhooks/codehost-a', {
      ...event,
      'x-codehost-a-signature-256': `sha256=${'0'.repeat(64)}`,
    });
  } finally {
    child.proc.kill('SIGTERM');
    const exited = once(child.proc, 'exit');
    const cut = setTimeout(() => child.proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(cut);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
