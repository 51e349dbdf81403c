/**
 * Dashboard benchmark (issue 17; not a test): one `svc serve` child on a JetStream server on loopback,
 * holding a company of BENCH_SEATS seats (default 500) and BENCH_HISTORY events (default 10,000) in its
 * history. Prints:
 *   1. first render in headless chromium: from navigation to the org chart showing every seat, and to the
 *      overview showing the latest event (targets: under 1 s), best and median of BENCH_RENDERS loads;
 *   2. fan-out: BENCH_CLIENTS dashboards (default 200) connected while BENCH_FANOUT events (default 2,000)
 *      are published at BENCH_RATE per second: p50/p99/max frame delay from publish to receipt (target:
 *      p99 under 100 ms), with one more client that never reads: the node's resident memory before and
 *      after (bounded: the hub holds at most 512 envelopes, 8 MiB, per socket).
 *
 * Run (from the repository root, after `npm run build`; needs nats-server and chromium):
 *   node --import=./node_modules/@tapjs/typescript/dist/esm/import.mjs scripts/bench/dashboard.ts
 * Every process it starts is stopped by pid when it ends.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ensureCatalogue, openBus, publishEvent, type Bus, newEvent } from '../../bus/index.js';
import { categoryOf } from '../../schema/index.js';
import { freePort, runSvc } from '../../test/harness/child.js';
import { startNatsServer } from '../../test/harness/nats-server.js';
import { openWs, type WsClient } from '../ws-client.js';

const seats = Number(process.env['BENCH_SEATS'] ?? 500);
const history = Number(process.env['BENCH_HISTORY'] ?? 10_000);
const renders = Number(process.env['BENCH_RENDERS'] ?? 5);
const clients = Number(process.env['BENCH_CLIENTS'] ?? 200);
const fanout = Number(process.env['BENCH_FANOUT'] ?? 2_000);
const rate = Number(process.env['BENCH_RATE'] ?? 200);
const chromiumPath = process.env['SVC_CHROMIUM'] ?? '/usr/bin/chromium';
const token = 'bench-dashboard-token-0123456789';
const fmt = (n: number): string => n.toFixed(0);

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
    console.log(
      `history: ${history} events stored in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

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
    cleanups.unshift(() => run.kill('SIGKILL'));
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
    for (let i = 0; i < renders; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await context.newPage();
      await page.goto(`${url}/dashboard#/org`);
      await page
        .locator('[data-handle]')
        .nth(seats - 1)
        .waitFor({ state: 'attached' });
      orgTimes.push(await page.evaluate<number>('performance.now()'));
      const fresh = await context.newPage();
      await fresh.goto(`${url}/dashboard#/overview`);
      await fresh.locator('.events-mini li').first().waitFor();
      overviewTimes.push(await fresh.evaluate<number>('performance.now()'));
      await context.close();
    }
    orgTimes.sort((a, b) => a - b);
    overviewTimes.sort((a, b) => a - b);
    console.log(
      `first render, ${seats} seats and ${history} events: org chart complete best ${fmt(orgTimes[0]!)} ms, ` +
        `median ${fmt(quantile(orgTimes, 0.5))} ms; overview with the feed best ${fmt(overviewTimes[0]!)} ms, ` +
        `median ${fmt(quantile(overviewTimes, 0.5))} ms (target < 1000 ms)`,
    );

    // 4. fan-out to many dashboards, one of them stalled
    const delays: number[] = [];
    let received = 0;
    const sockets: WsClient[] = [];
    const ws = `ws://127.0.0.1:${port}/ws/stream`;
    for (let c = 0; c < clients; c++)
      sockets.push(
        await openWs(ws, (text) => {
          if (!text.startsWith('{"kind":"event"')) return;
          const match = /"summary":"fanout \d+ at (\d+)"/.exec(text);
          if (!match) return;
          delays.push(Date.now() - Number(match[1]));
          received++;
        }),
      );
    cleanups.unshift(() => sockets.forEach((s) => s.close()));
    const rssBefore = rssKiB(run.child.pid!);
    const unstall = await stalledClient(port);
    cleanups.unshift(unstall);
    const gap = 1000 / rate;
    const flowStart = performance.now();
    for (let i = 0; i < fanout; i++) {
      const due = flowStart + i * gap;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      void publish(bus, i, `fanout ${i} at ${Date.now()}`);
    }
    const deadline = Date.now() + 30_000;
    while (received < fanout * clients && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const rssAfter = rssKiB(run.child.pid!);
    delays.sort((a, b) => a - b);
    console.log(
      `fan-out: ${clients} dashboards, ${fanout} events at ${rate}/s: ${received} of ${fanout * clients} frames; ` +
        `delay p50 ${fmt(quantile(delays, 0.5))} ms, p99 ${fmt(quantile(delays, 0.99))} ms, ` +
        `max ${fmt(delays[delays.length - 1] ?? NaN)} ms (target p99 < 100 ms)`,
    );
    console.log(
      `stalled client: node resident memory ${fmt(rssBefore / 1024)} MiB before, ${fmt(rssAfter / 1024)} MiB after ` +
        `(+${fmt((rssAfter - rssBefore) / 1024)} MiB; the socket's queue is capped at 512 envelopes, 8 MiB)`,
    );
    await bus.close();
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

await main();
