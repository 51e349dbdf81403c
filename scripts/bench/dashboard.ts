/**
 * Dashboard benchmark (not a test): one `svc serve` child on a JetStream server on loopback, holding a
 * company of BENCH_SEATS seats (default 500) and BENCH_HISTORY events (default 10,000) in its history.
 * Prints, each with a baseline measured in the same run (the machine may be loaded: the ratio is the figure
 * that travels):
 *   1. first render in headless chromium, best and median of BENCH_RENDERS loads (target: under 1 s): from
 *      navigation to the org chart's first view (every unit shown; a large company opens collapsed) and to
 *      the overview showing the latest event; baseline: the same load's DOMContentLoaded (the browser and
 *      the bundle, without the data);
 *   2. fan-out: BENCH_CLIENTS dashboards (default 200) in BENCH_WORKERS forked processes (default 4),
 *      connected while BENCH_FANOUT events (default 1,000) are published at BENCH_RATE per second (default
 *      50): p50/p99 frame delay from publish to receipt (target: p99 under 100 ms); baseline: the same
 *      clients on a bare fan-out of the same events from the bus on the transport alone (http/bench/bare-fanout.ts);
 *   3. with one more client that never reads: the node's resident memory before and after (bounded: the hub
 *      holds at most 512 envelopes, 8 MiB, per socket).
 * `--json`: the last line of stdout is one JSON array of rows
 * `{bench, measure, figure, unit, baseline, ratio, target?}`.
 *
 * Run (from the repository root, after `npm run build`; needs nats-server and chromium):
 *   node --import=tsx scripts/bench/dashboard.ts [--json]
 * Every process it starts is stopped by pid when it ends.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { ensureCatalogue, openBus, publishEvent, type Bus, newEvent } from '../../bus/index.js';
import { categoryOf } from '../../schema/index.js';
import { freePort, runSvc } from '../../test/harness/child.js';
import { startNatsServer } from '../../test/harness/nats-server.js';
import { fanoutSummary, type FromChild, type ToChild } from './dashboard.clients.js';
import { report, row, type BenchRow } from './table.js';

const seats = Number(process.env['BENCH_SEATS'] ?? 500);
const history = Number(process.env['BENCH_HISTORY'] ?? 10_000);
const renders = Number(process.env['BENCH_RENDERS'] ?? 5);
const clients = Number(process.env['BENCH_CLIENTS'] ?? 200);
const fanout = Number(process.env['BENCH_FANOUT'] ?? 1_000);
const rate = Number(process.env['BENCH_RATE'] ?? 50);
const workers = Math.max(1, Math.min(clients, Number(process.env['BENCH_WORKERS'] ?? 4)));
const chromiumPath = process.env['SVC_CHROMIUM'] ?? '/usr/bin/chromium';
const token = 'bench-dashboard-token-0123456789';
const fmt = (n: number): string => n.toFixed(0);
const fmt1 = (n: number): string => n.toFixed(1);

const rows: BenchRow[] = [];
const round = (n: number): number => Math.round(n * 100) / 100;
function addRow(measure: string, figure: number, unit: string, baseline: number, target?: string): void {
  const r = row('dashboard', measure, round(figure), unit, round(baseline), target);
  rows.push({ ...r, ratio: r.ratio === null ? null : round(r.ratio) });
}
const say = (line: string): void => console.log(line);

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/** 20 units of seats, a lead each. No provider: the seats idle; the page is what is measured. */
function company(): unknown {
  const perUnit = Math.ceil(seats / 20);
  const units = Array.from({ length: Math.ceil(seats / perUnit) }, (_, u) => ({
    name: `Unit ${u + 1}`,
    type: 'team',
    roles: Array.from({ length: Math.min(perUnit, seats - u * perUnit) }, (_, i) => ({
      name: `Seat ${u + 1}-${i + 1}`,
      goal: 'Answer what comes in.',
    })),
  }));
  return { name: 'Bench Co', mission: 'Measure the dashboard', timezone: 'UTC', units };
}

async function publish(bus: Bus, i: number, note: string): Promise<void> {
  const type = 'TaskCreated';
  await publishEvent(
    bus,
    newEvent({
      type,
      category: categoryOf(type) ?? 'task',
      source: 'bench',
      summary: note,
      actor: 'bench',
      payload: { task_id: `task-${i}`, title: `task ${i}` },
    }),
  );
}

function rssKiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m);
  return Number(line?.[1] ?? NaN);
}

/** A socket that upgrades and then never reads: the kernel buffers fill, then the node must bound it. */
function stalledClient(port: number): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        [
          'GET /ws/stream HTTP/1.1',
          `Host: 127.0.0.1:${port}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
          'Sec-WebSocket-Version: 13',
          '',
          '',
        ].join('\r\n'),
      );
      socket.once('data', () => {
        socket.pause();
        resolve(() => socket.destroy());
      });
    });
    socket.once('error', reject);
  });
}

const childScript = fileURLToPath(new URL('./dashboard.clients.ts', import.meta.url));

/** Forks one helper process (dashboard.clients.ts) in `role`; it inherits this process's `--import=tsx`. */
function forkChild(role: 'clients' | 'bare'): ChildProcess {
  return fork(childScript, [], { env: { ...process.env, BENCH_ROLE: role }, stdio: 'inherit' });
}

/** The next message of `kind` from a child (a `failed` one rejects). */
function reply<K extends FromChild['kind']>(
  child: ChildProcess,
  kind: K,
): Promise<Extract<FromChild, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromChild): void => {
      if (message.kind === 'failed') reject(new Error(message.error));
      else if (message.kind === kind) resolve(message as Extract<FromChild, { kind: K }>);
      else return;
      child.off('message', onMessage);
    };
    child.on('message', onMessage);
  });
}

const tell = (child: ChildProcess, message: ToChild): void => void child.send(message);

/** Stops a forked child: asked first, then by pid if it is still there. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  if (child.connected) tell(child, { kind: 'stop' });
  const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

interface ClientPool {
  readonly children: ChildProcess[];
  stop(): Promise<void>;
}

function startClients(n: number): ClientPool {
  const children = Array.from({ length: n }, () => forkChild('clients'));
  return { children, stop: async () => void (await Promise.all(children.map(stopChild))) };
}

async function startBare(natsUrl: string): Promise<{ port: number; stop(): Promise<void> }> {
  const child = forkChild('bare');
  const serving = reply(child, 'serving');
  tell(child, { kind: 'serve', natsUrl });
  return { port: (await serving).port, stop: () => stopChild(child) };
}

/**
 * Connects the pool's clients (BENCH_CLIENTS in all) to `url`, publishes BENCH_FANOUT events at BENCH_RATE,
 * waits until every frame arrived (or 30 s), closes the sockets and returns every delay, sorted.
 */
/** `connected` runs once every client is open and has its snapshot, before the events flow. */
async function fanOut(
  pool: ClientPool,
  url: string,
  bus: Bus,
  connected: () => Promise<void> = () => Promise.resolve(),
): Promise<number[]> {
  const per = pool.children.map((_, w) => Math.floor(clients / workers) + (w < clients % workers ? 1 : 0));
  await Promise.all(
    pool.children.map((child, w) => {
      const opened = reply(child, 'opened');
      tell(child, { kind: 'open', url, count: per[w]! });
      return opened;
    }),
  );
  await connected();
  const gap = 1000 / rate;
  const flowStart = performance.now();
  for (let i = 0; i < fanout; i++) {
    const wait = flowStart + i * gap - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    void publish(bus, i, fanoutSummary(i));
  }
  const delays: number[] = [];
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const reports = await Promise.all(
      pool.children.map((child) => {
        const answered = reply(child, 'delays');
        tell(child, { kind: 'report' });
        return answered;
      }),
    );
    for (const r of reports) for (const d of r.delays) delays.push(d);
    if (delays.length >= fanout * clients) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  // The next round measures another server: these sockets go first.
  await Promise.all(
    pool.children.map((child) => {
      const closed = reply(child, 'closed');
      tell(child, { kind: 'close' });
      return closed;
    }),
  );
  return delays.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const nats = await startNatsServer();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-dashboard-'));
  const cleanups: Array<() => unknown> = [
    () => nats.stop(),
    () => rmSync(dir, { recursive: true, force: true }),
  ];
  try {
    // 1. history first, on the stream the node will replay
    const bus = await openBus({ type: 'jetstream', url: nats.url });
    await ensureCatalogue(bus);
    const started = performance.now();
    for (let i = 0; i < history; i += 200)
      await Promise.all(
        Array.from({ length: Math.min(200, history - i) }, (_, j) => publish(bus, i + j, `history ${i + j}`)),
      );
    say(`history: ${history} events stored in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // 2. the node, and the company
    const port = await freePort();
    const configFile = join(dir, 'config.yaml');
    writeFileSync(
      configFile,
      [
        `providers: {queue: {type: jetstream, url: "${nats.url}"}}`,
        `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
      ].join('\n'),
    );
    const run = runSvc(['serve', '--config', configFile], { SVC_TOKEN: token, SVC_LOG_LEVEL: 'warn' });
    cleanups.unshift(async () => {
      run.kill('SIGTERM');
      await run.exited;
    });
    const url = `http://127.0.0.1:${port}`;
    for (;;) {
      const ok = await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const put = await fetch(`${url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-summary': 'bench' },
      body: JSON.stringify(company()),
    });
    if (put.status !== 201)
      throw new Error(`company refused: ${put.status} ${(await put.text()).slice(0, 400)}`);
    for (;;) {
      const org = (await (await fetch(`${url}/agents`)).json()) as unknown[];
      if (org.length >= seats) break;
      await new Promise((r) => setTimeout(r, 250));
    }

    // 3. first render in chromium
    const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    cleanups.unshift(() => browser.close());
    const orgTimes: number[] = [];
    const overviewTimes: number[] = [];
    const shellTimes: number[] = [];
    const units = (company() as { units: unknown[] }).units.length;
    const contentLoaded = 'performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd';
    for (let i = 0; i < renders; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await context.newPage();
      await page.goto(`${url}/dashboard#/org`);
      await page
        .locator('.org .unit-head')
        .nth(units - 1)
        .waitFor({ state: 'attached' });
      orgTimes.push(await page.evaluate<number>('performance.now()'));
      shellTimes.push(await page.evaluate<number>(contentLoaded));
      const fresh = await context.newPage();
      await fresh.goto(`${url}/dashboard#/overview`);
      await fresh.locator('.events-mini li').first().waitFor();
      overviewTimes.push(await fresh.evaluate<number>('performance.now()'));
      shellTimes.push(await fresh.evaluate<number>(contentLoaded));
      await context.close();
    }
    const snapshotBytes = (await (await fetch(`${url}/stream/snapshot`)).arrayBuffer()).byteLength;
    orgTimes.sort((a, b) => a - b);
    overviewTimes.sort((a, b) => a - b);
    shellTimes.sort((a, b) => a - b);
    const shell = quantile(shellTimes, 0.5);
    say(
      `first render, ${seats} seats in ${units} units and ${history} events (snapshot ${fmt(snapshotBytes / 1024)} KiB): ` +
        `org chart first view best ${fmt(orgTimes[0]!)} ms, median ${fmt(quantile(orgTimes, 0.5))} ms; ` +
        `overview with the feed best ${fmt(overviewTimes[0]!)} ms, median ${fmt(quantile(overviewTimes, 0.5))} ms ` +
        `(target < 1000 ms); baseline DOMContentLoaded median ${fmt(shell)} ms`,
    );
    addRow('org chart first view, median', quantile(orgTimes, 0.5), 'ms', shell, '< 1000 ms');
    addRow('overview with the latest events, median', quantile(overviewTimes, 0.5), 'ms', shell, '< 1000 ms');

    // 4. fan-out to many dashboards (clients in their own processes), one more stalled; then the baseline
    const pool = startClients(workers);
    cleanups.unshift(() => pool.stop());
    // Memory is read with the 200 dashboards connected (their snapshots sent), so the growth is the flow's
    // and the stalled client's, not the sockets'.
    let rssBefore = NaN;
    let unstall = (): void => undefined;
    const node = await fanOut(pool, `ws://127.0.0.1:${port}/ws/stream`, bus, async () => {
      rssBefore = rssKiB(run.child.pid!);
      unstall = await stalledClient(port);
      cleanups.unshift(unstall);
    });
    const rssAfter = rssKiB(run.child.pid!);
    unstall();
    const bare = await startBare(nats.url);
    cleanups.unshift(() => bare.stop());
    const baseline = await fanOut(pool, `ws://127.0.0.1:${bare.port}/`, bus);
    const p = (d: number[], q: number): number => quantile(d, q);
    say(
      `fan-out: ${clients} dashboards in ${workers} processes, ${fanout} events at ${rate}/s: ` +
        `${node.length} of ${fanout * clients} frames; delay p50 ${fmt1(p(node, 0.5))} ms, p99 ${fmt1(p(node, 0.99))} ms, ` +
        `max ${fmt1(node[node.length - 1] ?? NaN)} ms (target p99 < 100 ms); bare uWS fan-out of the same events: ` +
        `${baseline.length} frames, p50 ${fmt1(p(baseline, 0.5))} ms, p99 ${fmt1(p(baseline, 0.99))} ms; ` +
        `ratio p50 ${(p(node, 0.5) / p(baseline, 0.5)).toFixed(2)}, p99 ${(p(node, 0.99) / p(baseline, 0.99)).toFixed(2)}`,
    );
    addRow('frame delay p50, 200 dashboards', p(node, 0.5), 'ms', p(baseline, 0.5));
    addRow('frame delay p99, 200 dashboards', p(node, 0.99), 'ms', p(baseline, 0.99), '< 100 ms');
    addRow('frames delivered', node.length, 'frames', baseline.length);
    say(
      `stalled client: node resident memory ${fmt(rssBefore / 1024)} MiB before, ${fmt(rssAfter / 1024)} MiB after ` +
        `(+${fmt((rssAfter - rssBefore) / 1024)} MiB while ${fanout} events flowed to ${clients} dashboards and one that ` +
        `never reads; that socket's queue is capped at 512 envelopes, 8 MiB)`,
    );
    addRow('node resident memory with a stalled client', rssAfter / 1024, 'MiB', rssBefore / 1024, 'bounded');
    say(
      `load: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`,
    );
    report(rows);
    await bus.close();
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

await main();
