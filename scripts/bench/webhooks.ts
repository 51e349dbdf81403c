/**
 * Webhook benchmark (not a test): 20,000 signed tracker-b deliveries, 10% of them repeats of earlier ones,
 * from 50 concurrent keep-alive connections to `POST /webhooks/tracker-b` of a `svc serve` child. Checks from
 * the answers that every unique delivery was accepted once and every repeat answered as a duplicate, then
 * prints deliveries/s and p99 latency next to the raw bus publish rate (the memory engine in this process,
 * same payloads with their message ids, same concurrency) measured in the same run. Acceptance is not the
 * whole path: it also waits until the last accepted delivery is routed (its `webhook_received` event is
 * readable through `/events/trace/{id}`) and prints the routed rate against the accepted rate.
 *
 * Run (from the repository root, after `npm run build`): node --import=tsx scripts/bench/webhooks.ts [--json]
 * Options (environment): BENCH_DELIVERIES (20000), BENCH_CONNECTIONS (50), BENCH_DUPLICATE_RATIO (0.1),
 * BENCH_STORE=memory for a pure in-memory bus on both sides (default: SQLite under a temporary store_dir).
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ensureCatalogue, openMemoryBus, type Bus } from '../../bus/index.js';
import { deliveryKey, deliveryTrace, Vendor } from '../../schema/index.js';
import { auth, putCompany, quantile, startServe, type ServedNode } from './node.js';
import { report, row } from './table.js';

const total = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const dupRatio = Number(process.env.BENCH_DUPLICATE_RATIO ?? 0.1);
const secret = 'bench-tracker-b-secret-0123456789';
const document = {
  name: 'Bench',
  integrations: { tracker_b: { enabled: true, url: 'https://tracker-b.example', webhook_secret: secret } },
  roles: [{ name: 'Ada' }],
};

/** The delivery plan: unique ids 0..u-1, with repeats of earlier ids spread through the run. */
function plan(): number[] {
  const unique = Math.round(total * (1 - dupRatio));
  const order: number[] = [];
  for (let i = 0; i < unique; i++) order.push(i);
  for (let d = 0; d < total - unique; d++) {
    const at = Math.floor(((d + 1) * order.length) / (total - unique + 1));
    order.splice(at, 0, order[Math.floor(Math.random() * Math.max(1, at))] ?? 0);
  }
  return order;
}

function delivery(i: number): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ event: 'issue', action: 'updated', data: { id: `item-${i}`, name: `Item ${i}`, description_stripped: 'bench' }, activity: { actor: { id: 'u-1' } } }); // prettier-ignore
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-tracker-b-event': 'issue',
      'x-tracker-b-delivery': `bench-${i}`,
      'x-tracker-b-signature': createHmac('sha256', secret).update(body).digest('hex'),
    },
  };
}

function post(
  agent: Agent,
  port: number,
  d: { body: string; headers: Record<string, string> },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: '127.0.0.1', port, method: 'POST', path: '/webhooks/tracker-b', headers: { ...d.headers, 'content-length': Buffer.byteLength(d.body) } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(`${res.statusCode ?? 0}${text.includes('"duplicate":true') ? ' duplicate' : ''}`));
      },
    ); // prettier-ignore
    req.on('error', reject);
    req.end(d.body);
  });
}

async function openBench(): Promise<{ bus: Bus; cleanup: () => Promise<void> }> {
  const dir =
    process.env.BENCH_STORE === 'memory' ? null : mkdtempSync(join(tmpdir(), 'svc-bench-webhooks-'));
  const bus = await openMemoryBus(dir ? { storeDir: dir } : {});
  await ensureCatalogue(bus);
  return { bus, cleanup: async () => { await bus.close(); if (dir) rmSync(dir, { recursive: true, force: true }); } }; // prettier-ignore
}

/** The raw rate: the same payloads published straight to a stream with msgIds, 50 in flight. */
async function rawPublishRate(order: number[]): Promise<number> {
  const { bus, cleanup } = await openBench();
  await bus.ensureStream({ name: 'BENCH_RAW', subjects: ['bench.raw'], duplicateWindowMs: 24 * 3600 * 1000 });
  const payloads = order.map((i) => Buffer.from(delivery(i).body));
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < order.length) {
        const k = next++;
        await bus.publish('bench.raw', payloads[k]!, { msgId: `bench-${order[k]}` });
      }
    }),
  );
  const rate = order.length / ((performance.now() - started) / 1000);
  await cleanup();
  return rate;
}

async function main(): Promise<void> {
  const order = plan();
  const unique = new Set(order).size;
  const node = await startServe({ store: process.env.BENCH_STORE !== 'memory' });
  let load: { latencies: number[]; statuses: Array<[string, number]>; seconds: number };
  let routedSeconds: number;
  try {
    await putCompany(node, document);
    // The load generator is a process of its own, so the node does not share its event loop with it.
    // The plan goes through a file: tens of thousands of ids do not fit an environment variable.
    const planFile = join(node.dir, 'plan.json');
    writeFileSync(planFile, JSON.stringify({ port: node.port, order }));
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
      env: { ...process.env, BENCH_WEBHOOKS_LOAD: planFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const sent = performance.now();
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`load generator exited ${code}`);
    load = JSON.parse(out.trim().split('\n').pop() ?? '{}') as typeof load;
    routedSeconds = (await lastRouted(node, order)) - sent;
  } finally {
    await node.stop();
  }
  const { latencies, seconds } = load;
  const statuses = new Map(load.statuses);

  const raw = await rawPublishRate(order);
  const sorted = latencies.sort((a, b) => a - b);
  const rate = total / seconds;
  const accepted = statuses.get('200') ?? 0;
  const duplicates = statuses.get('200 duplicate') ?? 0;
  const result = {
    deliveries: total,
    unique,
    duplicates_sent: total - unique,
    connections,
    answers: Object.fromEntries(statuses),
    exactly_once: accepted === unique && duplicates === total - unique,
    deliveries_per_s: Math.round(rate),
    p50_ms: Number(quantile(sorted, 0.5).toFixed(2)),
    p99_ms: Number(quantile(sorted, 0.99).toFixed(2)),
    raw_bus_publish_per_s: Math.round(raw),
    ratio_to_raw: Number((rate / raw).toFixed(2)),
    routed_s: Number((routedSeconds / 1000).toFixed(2)),
    routed_per_s: Math.round(unique / (routedSeconds / 1000)),
    routed_to_accepted: Number((unique / (routedSeconds / 1000) / rate).toFixed(2)),
  };
  console.log(JSON.stringify(result));
  if (!result.exactly_once)
    throw new Error('a unique delivery was not accepted once, or a repeat was not a duplicate');
  report([
    row('webhooks', 'svc serve signed deliveries (vs raw bus publish)', rate, 'deliveries/s', raw, '≥ 0.25'),
    row('webhooks', 'delivery p99 latency', result.p99_ms, 'ms', null),
    row(
      'webhooks',
      'routed until the last accepted (vs accepted rate)',
      result.routed_per_s,
      'deliveries/s',
      rate,
      '≥ 0.8',
    ),
  ]);
}

/**
 * When the last accepted delivery was routed (performance.now()): routing follows the log, so once the
 * events of the last ids sent (one per connection at most in flight) are readable, every earlier one is.
 */
async function lastRouted(node: ServedNode, order: number[]): Promise<number> {
  const last = [...new Set(order.slice(-connections))];
  const traces = last.map((i) => deliveryTrace(deliveryKey(Vendor.TrackerB, null, `bench-${i}`)));
  const deadline = performance.now() + 600_000;
  for (const trace of traces) {
    for (;;) {
      const res = await fetch(`${node.url}/events/trace/${trace}`, { headers: auth });
      const body = (await res.json()) as { total?: number };
      if ((body.total ?? 0) > 0) break;
      if (performance.now() > deadline) throw new Error('the last deliveries were not routed in 10 minutes');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return performance.now();
}

/** The load generator: 50 keep-alive connections sending the plan, each request timed. */
async function load(spec: string): Promise<void> {
  const { port, order } = JSON.parse(readFileSync(spec, 'utf8')) as { port: number; order: number[] };
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < order.length) {
        const d = delivery(order[next++]!);
        const t0 = performance.now();
        const status = await post(agent, port, d);
        latencies.push(performance.now() - t0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  process.stdout.write(`${JSON.stringify({ latencies, statuses: [...statuses], seconds })}\n`);
}

const loadSpec = process.env.BENCH_WEBHOOKS_LOAD;
if (loadSpec === undefined)
  await main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
else await load(loadSpec);
