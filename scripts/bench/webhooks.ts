/**
 * Webhook benchmark (not a test): 20,000 signed tracker-b deliveries, 10% of them repeats of earlier
 * ones, from 50 concurrent keep-alive connections, through the real gateway into the audit stream and
 * on through the integration actor to `svc.notifications.inbound`. Checks that every unique delivery is
 * on the bus exactly once and that no duplicate passed, then prints deliveries/s and p99 latency next to
 * the raw bus publish rate (same engine, same payloads, same concurrency) measured in the same run.
 *
 * Run (from the repository root):
 *   TS_NODE_TRANSPILE_ONLY=1 node --import @isaacs/ts-node-temp-fork-for-pr-2009/import scripts/bench/webhooks.ts
 * Options (environment): BENCH_DELIVERIES (20000), BENCH_CONNECTIONS (50), BENCH_DUPLICATE_RATIO (0.1),
 * BENCH_STORE=memory for a pure in-memory bus (default: SQLite under a temporary store_dir).
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { join } from 'node:path';
import { pino } from 'pino';
import { peopleFrom, startIntegrationHost } from '../../actors/index.js';
import { ensureCatalogue, openMemoryBus, Streams, type Bus } from '../../bus/index.js';
import { Arrivals, relayKeySet, startGateway, webhookRoutes, webhookSettingsFrom } from '../../http/index.js';
import { applyIntegrationRecord, arrivalsOf, emptyIntegrationsState } from '../../projections/index.js';

const total = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const dupRatio = Number(process.env.BENCH_DUPLICATE_RATIO ?? 0.1);
const secret = 'bench-tracker-b-secret-0123456789';
const document = {
  name: 'Bench',
  integrations: { tracker_b: { enabled: true, url: 'https://tracker-b.example', webhook_secret: secret } },
  roles: [{ name: 'Ada' }],
};

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

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
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: '127.0.0.1', port, method: 'POST', path: '/webhooks/tracker-b', headers: { ...d.headers, 'content-length': Buffer.byteLength(d.body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    ); // prettier-ignore
    req.on('error', reject);
    req.end(d.body);
  });
}

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

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
  const { bus, cleanup } = await openBench();
  const logger = pino({ level: 'warn' });
  const arrivals = new Arrivals({ bus, nodeId: 'bench' });
  const settings = webhookSettingsFrom('bench', document, {
    monitorToken: null,
    wikiToken: null,
    relayKeySetUrl: null,
  });
  const routes = webhookRoutes({
    bus,
    settings: () => settings,
    configured: () => true,
    arrivals,
    relayKeys: (u) => relayKeySet(u),
  });
  const port = await freePort();
  const gw = await startGateway({
    host: '127.0.0.1', port, ingress: true, routes, logger,
    auth: { disabled: false, allowAnonymousRead: true, tokens: [] },
    probes: { health: () => ({}), ready: () => ({ ready: true }), draining: () => false, configured: () => true },
  }); // prettier-ignore
  const integration = process.env.BENCH_NO_ACTOR
    ? { stop: async () => {} }
    : await startIntegrationHost({ bus, people: () => peopleFrom(document), logger });

  // The load generator runs on its own thread, so it does not share the server's event loop.
  const worker = new Worker(new URL(import.meta.url), { workerData: { port, order } });
  const [load] = (await once(worker, 'message')) as [
    { latencies: number[]; statuses: Array<[number, number]>; seconds: number },
  ];
  await worker.terminate();
  const { latencies, seconds } = load;
  const statuses = new Map(load.statuses);

  // Exactly once: the audit stream holds each unique delivery once; the actor publishes each once.
  const seen = new Map<string, number>();
  for await (const m of bus.replay(Streams.Webhooks)) {
    const id = m.headers['svc-delivery-id'] ?? '';
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  const twice = [...seen.values()].filter((n) => n > 1).length;
  // The duplicates counted: a fold of the arrival records, as `/integrations` reads them.
  const counted = emptyIntegrationsState();
  for await (const m of bus.replay(Streams.Integrations))
    applyIntegrationRecord(counted, JSON.parse(Buffer.from(m.data).toString('utf8')));
  const duplicates = arrivalsOf(counted, 'tracker-b').duplicates;
  const withActor = !process.env.BENCH_NO_ACTOR;
  for (; withActor;) {
    const info = await bus.streamInfo(Streams.Notify);
    if (info.lastSeq >= unique) break;
    await new Promise((r) => setImmediate(r));
  }
  const notified = (await bus.streamInfo(Streams.Notify)).lastSeq;
  await integration.stop();
  await gw.close();
  await cleanup();

  const raw = await rawPublishRate(order);
  const sorted = latencies.sort((a, b) => a - b);
  const rate = total / seconds;
  const result = {
    deliveries: total,
    unique,
    duplicates_sent: total - unique,
    connections,
    statuses: Object.fromEntries(statuses),
    stored_unique: seen.size,
    stored_twice: twice,
    notifications: notified,
    exactly_once:
      seen.size === unique &&
      twice === 0 &&
      (notified === unique || !withActor) &&
      duplicates === total - unique,
    deliveries_per_s: Math.round(rate),
    p50_ms: Number(quantile(sorted, 0.5).toFixed(2)),
    p99_ms: Number(quantile(sorted, 0.99).toFixed(2)),
    raw_bus_publish_per_s: Math.round(raw),
    ratio_to_raw: Number((rate / raw).toFixed(2)),
  };
  console.log(JSON.stringify(result, null, 2));
  if (!result.exactly_once) process.exitCode = 1;
}

/** The worker: 50 keep-alive connections sending the plan, each request timed. */
async function load(): Promise<void> {
  const { port, order } = workerData as { port: number; order: number[] };
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
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
  parentPort?.postMessage({ latencies, statuses: [...statuses], seconds });
}

if (isMainThread) await main();
else await load();
