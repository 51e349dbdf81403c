/**
 * The node the benchmarks measure: the built `svc serve` (dist/) as a child on a free loopback port, with an
 * operator token, spawned by the tests' own `runSvc` (test/harness/child.ts) so there is one spawner. Stopped
 * by pid; its temp directory removed unless the caller gave the directory.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, runSvc, svcBin, type LogLine, type SvcChild } from '../../test/harness/child.js';

export { freePort };
export const TOKEN = 'bench-token-0123456789abcdef0123456789';
export const auth = { authorization: `Bearer ${TOKEN}` } as const;

// Children still running when this process ends (a failure, the runner's timeout) are killed by pid.
const live = new Set<SvcChild>();
process.on('exit', () => {
  for (const run of live) run.kill('SIGKILL');
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => process.exit(1));

export interface ServeOptions {
  /** Directory for config and store; a temporary one (removed on stop) when absent. */
  readonly dir?: string;
  /** `providers.queue` contents (default `type: memory`). */
  readonly queue?: string;
  /** A store directory under `dir` for the memory engine (default true). */
  readonly store?: boolean;
  /** More Tier A lines (e.g. `node: {id: a}`). */
  readonly extra?: readonly string[];
  readonly env?: Record<string, string>;
  /** Called with the child's pid as soon as it is spawned (e.g. to sample its memory while it boots). */
  readonly onSpawn?: (pid: number) => void;
}

export interface ServedNode {
  readonly run: SvcChild;
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  waitForLog(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** SIGTERM, SIGKILL after 15 s; resolves once it exited (and its temp directory is gone). */
  stop(): Promise<void>;
}

/** Starts `svc serve` and resolves once it logs `node serving`. */
export async function startServe(opts: ServeOptions = {}): Promise<ServedNode> {
  if (!existsSync(svcBin)) throw new Error(`${svcBin} is missing: run \`npm run build\` first`);
  const own = opts.dir === undefined;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const port = await freePort();
  const configFile = join(dir, 'config.yaml');
  writeFileSync(
    configFile,
    [
      `providers: {queue: {${opts.queue ?? 'type: memory'}}}`,
      `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
      ...(opts.store === false ? [] : [`stream: {store_dir: ${join(dir, 'data')}}`]),
      ...(opts.extra ?? []),
    ].join('\n'),
  );
  const run = runSvc(['serve', '--config', configFile], { SVC_TOKEN: TOKEN, ...opts.env });
  live.add(run);
  opts.onSpawn?.(run.child.pid!);
  void run.exited.then(() => live.delete(run));
  const stop = async (): Promise<void> => {
    if (run.child.exitCode === null && run.child.signalCode === null) {
      run.kill('SIGTERM');
      const cut = setTimeout(() => run.kill('SIGKILL'), 15_000);
      await run.exited;
      clearTimeout(cut);
    }
    if (own) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run.waitForLog((line) => line.msg === 'node serving', 120_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    run,
    pid: run.child.pid!,
    port,
    url: `http://127.0.0.1:${port}`,
    dir,
    waitForLog: (match, timeoutMs = 120_000) => run.waitForLog(match, timeoutMs),
    stop,
  };
}

/** Writes a company document with `PUT /config` and resolves once the node applied it. */
export async function putCompany(node: ServedNode, company: unknown, summary = 'bench'): Promise<number> {
  const res = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': summary },
    body: JSON.stringify(company),
  });
  const answer = (await res.json()) as { epoch?: number };
  if (res.status !== 201 || answer.epoch === undefined)
    throw new Error(`PUT /config answered ${res.status}: ${JSON.stringify(answer)}`);
  const epoch = answer.epoch;
  await node.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === epoch);
  return epoch;
}

/** A process's resident set in MiB, from /proc. */
export function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

export const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
