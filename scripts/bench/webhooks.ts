/**
 * Webhook benchmark (not a test): 20,000 signed tracker-b deliveries, 10% of them repeats of earlier ones,
 * from 50 concurrent keep-alive connections of wrk (wrk.ts; the deliveries signed beforehand, a Lua script
 * sends them and reads each answer) to `POST /webhooks/tracker-b` of a `svc serve` child. Checks from
 * the answers that every unique delivery was accepted once and every repeat answered as a duplicate, then
 * prints deliveries/s and p99 latency next to the raw bus publish rate (the memory engine in this process,
 * same payloads with their message ids, same concurrency) measured in the same run. Acceptance is not the
 * whole path: it also waits until the last accepted delivery is routed (its `webhook_received` event is
 * readable through `/events/trace/{id}`) and prints the routed rate against the accepted rate (deliveries
 * answered 202; repeats are never routed, so they count in neither). Beside them it prints the design
 * floor: the same wrk load against a bare listener (http/bench/bare-webhook.ts) that only verifies each
 * delivery and makes the two durable writes every node makes for it (the raw delivery, then its
 * `webhook_received` event) on the same engine — the rate no tuning of routing, guard or logging can pass on
 * this machine; and the same receiver making only the first write, and none, to show what of the floor is
 * HTTP and what is the writes. Rates move with the machine's load (other processes take the 2 cores
 * unevenly); the CPU each side spends per delivery moves far less, so it prints the node's (its process,
 * from /proc, over sending and routing) beside the floor's (this process while it serves the bare
 * receiver with both writes).
 *
 * Run (from the repository root, after `npm run build`): node --import=tsx scripts/bench/webhooks.ts [--json]
 * Options (environment): BENCH_DELIVERIES (20000), BENCH_CONNECTIONS (50), BENCH_DUPLICATE_RATIO (0.1),
 * BENCH_STORE=memory for a pure in-memory bus on both sides (default: SQLite under a temporary store_dir),
 * BENCH_BODY_BYTES to pad each delivery's description to about that size (default: about 170 bytes in all;
 * vendors' real payloads run to kilobytes, where parsing a body counts for more).
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { receivedEvent } from '../../actors/index.js';
import { ensureCatalogue, openMemoryBus, publishEvent, Subjects, type Bus } from '../../bus/index.js';
import { startBareWebhookServer } from '../../http/bench/bare-webhook.js';
import {
  deliveryKey,
  deliveryTrace,
  RawHeader,
  Vendor,
  type InboundNotification,
} from '../../schema/index.js';
import { auth, putCompany, startServe, type ServedNode } from './node.js';
import { report, row } from './table.js';
import { ensureWrk, wrkThreads } from './wrk.js';

const total = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const dupRatio = Number(process.env.BENCH_DUPLICATE_RATIO ?? 0.1);
const padding = 'x'.repeat(Math.max(0, Number(process.env.BENCH_BODY_BYTES ?? 0) - 170));
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
  const body = JSON.stringify({ event: 'issue', action: 'updated', data: { id: `item-${i}`, name: `Item ${i}`, description_stripped: `bench${padding}` }, activity: { actor: { id: 'u-1' } } }); // prettier-ignore
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

async function openBench(): Promise<{ bus: Bus; cleanup: () => Promise<void> }> {
  const dir =
    process.env.BENCH_STORE === 'memory' ? null : mkdtempSync(join(tmpdir(), 'svc-bench-webhooks-'));
  const bus = await openMemoryBus(dir ? { storeDir: dir } : {});
  await ensureCatalogue(bus);
  return { bus, cleanup: async () => { await bus.close(); if (dir) rmSync(dir, { recursive: true, force: true }); } }; // prettier-ignore
}

/** CPU time (user + system) a process has used, in ms, from /proc (10 ms ticks). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
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

/**
 * The design floor: wrk against the bare receiver, each verified delivery stored as the node stores it
 * (raw delivery with its headers and dedup key, then its `webhook_received` event) before the answer.
 * `writes` below 2 stops short of that (the raw delivery only, or nothing), to show where the floor goes.
 */
async function floorRate(order: number[], writes: 0 | 1 | 2 = 2): Promise<Load & { cpuUs: number }> {
  const { bus, cleanup } = await openBench();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-floor-'));
  const store = async (body: Buffer, deliveryId: string): Promise<boolean> => {
    const id = deliveryKey(Vendor.TrackerB, null, deliveryId);
    const receivedAt = new Date().toISOString();
    if (writes === 0) return false;
    const ack = await bus.publish(Subjects.webhookDelivery(Vendor.TrackerB), body, {
      msgId: id,
      headers: {
        [RawHeader.Vendor]: Vendor.TrackerB,
        [RawHeader.Pipeline]: Vendor.TrackerB,
        [RawHeader.DeliveryId]: deliveryId,
        [RawHeader.ReceivedAt]: receivedAt,
        [RawHeader.Event]: 'issue',
        [RawHeader.Seat]: '',
        [RawHeader.Scheme]: 'hmac-sha256',
        [RawHeader.SignatureHeaders]: '["x-tracker-b-signature"]',
        [RawHeader.VendorHeaders]: JSON.stringify({ 'content-type': 'application/json', 'x-tracker-b-event': 'issue', 'x-tracker-b-delivery': deliveryId }), // prettier-ignore
        [RawHeader.ContentType]: 'application/json',
      },
    });
    if (ack.duplicate) return true;
    if (writes === 1) return false;
    const notification: InboundNotification = {
      id, vendor: Vendor.TrackerB, pipeline: Vendor.TrackerB, event: 'issue', delivery_id: deliveryId,
      received_at: receivedAt, seat: null, trigger: null, summary: 'Item updated',
      subject: { kind: 'issue', id: null, key: null, title: null, space: null, url: null },
      mentions: [], named: [], raw: { stream: ack.stream, seq: ack.seq }, payload: null,
    }; // prettier-ignore
    await publishEvent(bus, receivedEvent(notification, 'bench/integration'));
    return false;
  };
  const server = await startBareWebhookServer('127.0.0.1', 0, secret, store);
  try {
    const cpu = process.cpuUsage();
    const load = await sendWithWrk({ url: `http://127.0.0.1:${server.port}`, dir }, order);
    const { user, system } = process.cpuUsage(cpu);
    return { ...load, cpuUs: (user + system) / order.length };
  } finally {
    server.close();
    await cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  ensureWrk();
  const order = plan();
  const unique = new Set(order).size;
  const node = await startServe({ store: process.env.BENCH_STORE !== 'memory' });
  let load: Load;
  let routedSeconds: number;
  let nodeCpuUs: number;
  try {
    await putCompany(node, document);
    const cpu = cpuMs(node.pid);
    load = await sendWithWrk(node, order);
    // From the first delivery sent, as the accepted rate counts: signing the deliveries, writing wrk's
    // data file and its script loading it (seconds with kilobyte bodies) are no part of routing.
    routedSeconds = (await lastRouted(node, order)) - load.sendingFrom;
    nodeCpuUs = ((cpuMs(node.pid) - cpu) * 1000) / order.length;
  } finally {
    await node.stop();
  }
  const { seconds } = load;
  const raw = await rawPublishRate(order);
  const floor = await floorRate(order);
  const floorRatePerS = total / floor.seconds;
  const oneWritePerS = total / (await floorRate(order, 1)).seconds;
  const noWritePerS = total / (await floorRate(order, 0)).seconds;
  const rate = total / seconds;
  const { accepted, duplicates } = load;
  // Repeats are answered but never routed: routing is compared with the deliveries answered 202 a second.
  const acceptedRate = accepted / seconds;
  const result = {
    deliveries: total,
    unique,
    duplicates_sent: total - unique,
    connections,
    answers: { accepted, duplicate: duplicates, other: load.other },
    exactly_once: accepted === unique && duplicates === total - unique,
    deliveries_per_s: Math.round(rate),
    p50_ms: load.p50Ms,
    p99_ms: load.p99Ms,
    raw_bus_publish_per_s: Math.round(raw),
    ratio_to_raw: Number((rate / raw).toFixed(2)),
    routed_s: Number((routedSeconds / 1000).toFixed(2)),
    routed_per_s: Math.round(unique / (routedSeconds / 1000)),
    accepted_per_s: Math.round(acceptedRate),
    routed_to_accepted: Number((unique / (routedSeconds / 1000) / acceptedRate).toFixed(2)),
    node_cpu_us_per_delivery: Math.round(nodeCpuUs),
    floor_per_s: Math.round(floorRatePerS),
    floor_cpu_us_per_delivery: Math.round(floor.cpuUs),
    floor_to_raw: Number((floorRatePerS / raw).toFixed(2)),
    floor_exactly_once: floor.accepted === unique && floor.duplicates === total - unique,
    floor_one_write_to_raw: Number((oneWritePerS / raw).toFixed(2)),
    floor_no_write_to_raw: Number((noWritePerS / raw).toFixed(2)),
  };
  console.log(JSON.stringify(result));
  if (!result.exactly_once)
    throw new Error('a unique delivery was not accepted once, or a repeat was not a duplicate');
  report([
    row('webhooks', 'svc serve signed deliveries (vs raw bus publish)', rate, 'deliveries/s', raw, '≥ 0.25'),
    row('webhooks', 'delivery p99 latency', result.p99_ms, 'ms', null),
    row(
      'webhooks',
      'design floor: bare receiver, verify, the two durable writes (vs raw bus publish)',
      floorRatePerS,
      'deliveries/s',
      raw,
    ),
    row('webhooks', 'node CPU per delivery, sent to routed (vs design floor)', nodeCpuUs, 'µs', floor.cpuUs), // prettier-ignore
    row('webhooks', 'bare receiver, the raw delivery written only (vs raw bus publish)', oneWritePerS, 'deliveries/s', raw), // prettier-ignore
    row('webhooks', 'bare receiver answering with no write (vs raw bus publish)', noWritePerS, 'deliveries/s', raw), // prettier-ignore
    row(
      'webhooks',
      'routed until the last accepted (vs accepted rate)',
      result.routed_per_s,
      'deliveries/s',
      acceptedRate,
      '≥ 0.8',
    ),
  ]);
}

/**
 * When the last accepted delivery was routed (performance.now()): routing follows the log, so once the
 * events of the last ids each wrk thread sent (one per connection at most in flight) are readable, every
 * earlier one is.
 */
async function lastRouted(node: ServedNode, order: number[]): Promise<number> {
  // Each wrk thread sends its own share in order: the last of every share.
  const shares = Array.from({ length: wrkThreads }, (_, t) => order.filter((_, k) => k % wrkThreads === t));
  const last = [...new Set(shares.flatMap((share) => share.slice(-connections)))];
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

interface Load {
  readonly accepted: number;
  readonly duplicates: number;
  readonly other: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** `performance.now()` when the first delivery went out (the last answer less the sending time). */
  readonly sendingFrom: number;
}

/**
 * wrk's script: thread k of n sends the plan's deliveries k, k+n, ... once each and counts their answers;
 * a connection with nothing left to send asks `/health` (not counted) until the last answer is in, then the
 * thread says DONE and stops. wrk itself runs its whole duration; told to stop (SIGINT), it reports at once.
 */
const wrkScript = (dataFile: string, threads: number): string => `
local DATA, THREADS = ${JSON.stringify(dataFile)}, ${threads}
local started, threads = 0, {}
function setup(thread) started = started + 1; thread:set("tid", started); table.insert(threads, thread) end
function init(args)
  -- wrk calls the first thread's request() once before any connection, to count pipelined requests.
  reqs, sent, accepted, duplicate, other, finished = {}, tid == 1 and -1 or 0, 0, 0, 0, false
  local k = 0
  for line in io.lines(DATA) do
    if k % THREADS == tid - 1 then
      local body, signature, id = line:match("^(.-)\t(.-)\t(.-)$")
      table.insert(reqs, wrk.format("POST", "/webhooks/tracker-b", {["content-type"] = "application/json", ["x-tracker-b-event"] = "issue", ["x-tracker-b-delivery"] = id, ["x-tracker-b-signature"] = signature}, body))
    end
    k = k + 1
  end
  extra = wrk.format("GET", "/health")
end
function request()
  sent = sent + 1
  if sent >= 1 and sent <= #reqs then return reqs[sent] end
  return extra
end
function response(status, headers, body)
  if body:find('"accepted":', 1, true) then
    if body:find('"duplicate":true', 1, true) then duplicate = duplicate + 1 else accepted = accepted + 1 end
  elseif status ~= 200 then other = other + 1 end
  if not finished and accepted + duplicate + other >= #reqs then
    finished = true; io.write("DONE\\n"); io.flush(); wrk.thread:stop()
  end
end
function done(summary, latency, requests)
  local a, d, o = 0, 0, 0
  for _, t in ipairs(threads) do a = a + t:get("accepted"); d = d + t:get("duplicate"); o = o + t:get("other") end
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %.6f %.3f %.3f\\n", a, d, o, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
  io.write(string.format("ERRORS connect=%d read=%d write=%d status=%d timeout=%d\\n", e.connect, e.read, e.write, e.status, e.timeout))
end
`;

/** Sends the plan with wrk (its own process, so the node keeps its thread) and reads its counts. */
async function sendWithWrk(node: Pick<ServedNode, 'url' | 'dir'>, order: number[]): Promise<Load> {
  const dataFile = join(node.dir, 'deliveries.tsv');
  writeFileSync(dataFile, order.map((i) => { const d = delivery(i); return `${d.body}\t${d.headers['x-tracker-b-signature']}\t${d.headers['x-tracker-b-delivery']}`; }).join('\n') + '\n'); // prettier-ignore
  const script = join(node.dir, 'deliveries.lua');
  writeFileSync(script, wrkScript(dataFile, wrkThreads));
  // A long duration and timeout: the script stops once every answer is in, and answers may wait up to 2 s
  // while routing catches up (backlog.ts).
  // A node slower than 100 deliveries/s is broken: past that, wrk stops and the bench says why.
  const ceiling = process.env.BENCH_WRK_DURATION ?? `${Math.max(120, Math.ceil(order.length / 100))}s`;
  const args = ['-t', String(wrkThreads), '-c', String(connections), '-d', ceiling, '--timeout', '30s', '-s', script, `${node.url}/health`]; // prettier-ignore
  const spawned = performance.now();
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let allDoneAt: number | undefined;
  let stopping: NodeJS.Timeout | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (stopping !== undefined || (out.match(/^DONE$/gm) ?? []).length !== wrkThreads) return;
    allDoneAt = performance.now();
    // wrk's handler only sets a flag: a SIGINT taken by a thread still ending, not by the main thread's
    // sleep, leaves wrk asleep for its whole duration (seen once in about ten runs). Sent until it exits.
    child.kill('SIGINT');
    stopping = setInterval(() => child.kill('SIGINT'), 250);
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(stopping);
  const match = /RESULT (\d+) (\d+) (\d+) ([\d.]+) ([\d.]+) ([\d.]+)/.exec(out);
  if (code !== 0 || !match) throw new Error(`wrk failed (exit ${code}):\n${out}`);
  if (allDoneAt === undefined)
    throw new Error(
      `wrk reached its ${ceiling} ceiling before every answer was in (a lost answer?):\n${out}`,
    );
  const [accepted, duplicates, other, wrkSeconds, p50Ms, p99Ms] = match.slice(1).map(Number) as [number, number, number, number, number, number]; // prettier-ignore
  // wrk's own clock starts after its scripts load, but runs on if it slept past the last answer: the
  // bench's clock (spawn to the last answer, scripts' load included) bounds it.
  const seconds = Math.min(wrkSeconds, (allDoneAt - spawned) / 1000);
  return { accepted, duplicates, other, seconds, p50Ms, p99Ms, sendingFrom: allDoneAt - seconds * 1000 };
}

await main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
