/**
 * Projections benchmark (issue 7): for BENCH_EVENTS stored events (default 1,000,000) on the memory engine
 * persisted under a temporary store directory, in one run:
 *   1. the bus's raw replay rate (messages/s, nothing decoded) and the events projection's replay rate
 *      (events/s, decoded and indexed) and their ratio (target >= 0.5), best of BENCH_ROUNDS each, interleaved;
 *   2. `/events` answer latency at that size (newest page, a deep page, filtered pages, by id, by trace);
 *   3. WebSocket fan-out to BENCH_CLIENTS clients (default 200): BENCH_FANOUT events (default 2,000)
 *      published on the bus, pushed by the projection through the hub; deliveries/s and p50/p99 latency
 *      from publish to receipt. The clients run in the same process as the node (so the figure is a floor).
 *
 * The subject is the projection and the hub in this process (parts, not a `svc serve` child); its replay
 * row's baseline is the bus's raw replay.
 *
 * Run (from the repository root): node --import=tsx scripts/bench/projections.ts [--json]
 * Options (environment): BENCH_EVENTS, BENCH_ROUNDS (default 3), BENCH_CLIENTS, BENCH_FANOUT;
 * BENCH_ONLY=replay measures the replay ratio alone (no pages, no fan-out); BENCH_STORE=<dir> keeps the
 * filled store there and reuses it on the next run when it already holds BENCH_EVENTS events (so repeated
 * runs, e.g. under `node --cpu-prof`, skip the fill).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { ensureCatalogue, openBus, publishEvent, Streams, type Bus, newEvent } from '../../bus/index.js';
import { queryRoutes, startGateway } from '../../http/index.js';
import {
  decodeRecord,
  eventsProjection,
  getEvent,
  listEvents,
  parseListQuery,
  runProjection,
  traceEvents,
  type EventsSource,
  type EventsState,
  type RunningProjection,
} from '../../projections/index.js';
import { categoryOf, type EventRecord } from '../../schema/index.js';
import { startEvents } from '../events-wiring.js';
import { openWs, type WsClient } from '../ws-client.js';
import { report, row, type BenchRow } from './table.js';

const total = Number(process.env['BENCH_EVENTS'] ?? 1_000_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
const only = process.env['BENCH_ONLY'];
const keep = process.env['BENCH_STORE'];
const clients = Number(process.env['BENCH_CLIENTS'] ?? 200);
const fanout = Number(process.env['BENCH_FANOUT'] ?? 2_000);
const window = 512;
const types = Object.keys({
  agent_phase_completed: 1,
  agent_phase_started: 1,
  TaskCreated: 1,
  webhook_received: 1,
  auxiliary_spend: 1,
});
const seats = Array.from({ length: 40 }, (_, i) => `seat-${i}`);
const rows: BenchRow[] = [];
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number): string => `${n.toFixed(2)} ms`;

function sample(i: number, base: number): EventRecord {
  const type = types[i % types.length] as string;
  return newEvent({
    type,
    category: categoryOf(type) ?? 'system',
    source: `seat/${seats[i % seats.length]}`,
    summary: `${type} ${i}: a one-line summary of what happened, about as long as a real one`,
    actor: seats[i % seats.length] as string,
    agent_id: seats[i % seats.length],
    // Ties on purpose: ten events share each millisecond.
    now: new Date(base + Math.floor(i / 10)),
    ...(i % 50 === 0 ? { trace: { trace_id: 'f'.repeat(32), parent_span_id: null } } : {}),
    payload: {
      turn_id: `turn-${i >> 4}`,
      phase: 'execute',
      tokens: { input: 1200, output: 300 },
      response: 'x'.repeat(240),
    },
  });
}

async function fill(bus: Bus): Promise<void> {
  const base = Date.now() - Math.ceil(total / 10) - 60_000;
  let next = 0;
  const started = performance.now();
  const lane = async (): Promise<void> => {
    while (next < total) {
      const i = next++;
      const e = sample(i, base);
      await publishEvent(bus, e);
    }
  };
  await Promise.all(Array.from({ length: window }, lane));
  console.log(`stored ${fmt(total)} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function rawReplay(bus: Bus): Promise<number> {
  const started = performance.now();
  let n = 0;
  for await (const m of bus.replay(Streams.Events)) n += m.data.length > 0 ? 1 : 0;
  return n / ((performance.now() - started) / 1000);
}

async function projectionReplay(
  bus: Bus,
): Promise<{ rate: number; running: RunningProjection<EventsState> }> {
  const started = performance.now();
  const running = await runProjection({ bus, projection: eventsProjection });
  return { rate: running.state().index.size / ((performance.now() - started) / 1000), running };
}

function quantiles(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  return {
    p50: s[Math.floor(s.length * 0.5)] ?? 0,
    p99: s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0,
  };
}

async function latency(label: string, times: number, run: () => Promise<unknown>): Promise<void> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await run();
    samples.push(performance.now() - t0);
  }
  const q = quantiles(samples);
  console.log(`${label.padEnd(44)} p50 ${ms(q.p50)}   p99 ${ms(q.p99)}`);
  rows.push(row('projections', `${label} p99`, q.p99, 'ms', null));
}

async function pages(bus: Bus, running: RunningProjection<EventsState>): Promise<void> {
  const src: EventsSource = {
    state: () => running.state(),
    fetch: async (seq) => {
      const m = await bus.getMessage(Streams.Events, seq);
      return m ? decodeRecord(m.data) : null;
    },
    node: 'bench',
    historySeconds: 30 * 24 * 3600,
  };
  const index = running.state().index;
  const ids = Array.from({ length: 100 }, (_, k) => index.idAt(Math.floor((k * index.size) / 100)));
  const list = (q: string) => listEvents(src, parseListQuery(new URLSearchParams(q)));
  const first = await list('limit=400');
  await latency('/events newest page (400 rows)', 50, () => list('limit=400'));
  const mid = running.state().index;
  const m = Math.floor(mid.size / 2);
  const inst = mid.instantAt(m);
  const cursor = `before_time=${new Date(inst.ms).toISOString()}&before_id=${mid.idAt(m)}`;
  await latency('/events page in the middle (400 rows)', 50, () => list(`limit=400&${cursor}`));
  await latency('/events next page from a cursor (400 rows)', 50, () =>
    list(`limit=400&before_time=${first.next?.before_time}&before_id=${first.next?.before_id}`),
  );
  await latency('/events feed_only + seat filter (400 rows)', 50, () =>
    list('limit=400&feed_only=true&agent_id=seat-7'),
  );
  await latency('/events category=webhook (100 rows)', 50, () => list('limit=100&category=webhook'));
  await latency('/events/{id} (id table)', 50, async () =>
    getEvent(src, ids[Math.floor(Math.random() * ids.length)] ?? ''),
  );
  await latency('/events/trace/{id} (500 of the trace)', 10, () => traceEvents(src, 'f'.repeat(32)));
}

async function fanOut(): Promise<void> {
  const bus = await openBus({ type: 'memory' });
  await ensureCatalogue(bus);
  const events = await startEvents({
    bus,
    node: 'bench',
    historySeconds: 30 * 24 * 3600,
    health: () => ({ status: 'ok' }),
    logger: pino({ level: 'silent' }),
  });
  const gw = await startGateway({
    host: '127.0.0.1',
    port: 20_000 + Math.floor(Math.random() * 20_000),
    ingress: true,
    auth: { disabled: false, allowAnonymousRead: true, tokens: [] },
    routes: [...events.routes(), ...queryRoutes(events.questions)],
    stream: events.hub,
    probes: {
      health: () => ({}),
      ready: () => ({ ready: true }),
      draining: () => false,
      configured: () => true,
    },
  });
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let delivered = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const sockets: WsClient[] = [];
  for (let c = 0; c < clients; c++) {
    sockets.push(
      await openWs(`ws://127.0.0.1:${gw.port}/ws/stream`, (text) => {
        if (!text.startsWith('{"kind":"event"')) return;
        const id = (JSON.parse(text) as { data: { id: string } }).data.id;
        latencies.push(performance.now() - (sentAt.get(id) ?? 0));
        if (++delivered === clients * fanout) done();
      }),
    );
  }
  const started = performance.now();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < fanout) {
      const e = sample(next++, Date.now());
      sentAt.set(e.id, performance.now());
      await publishEvent(bus, { ...e, type: 'TaskCreated', category: 'task' });
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  await finished;
  const seconds = (performance.now() - started) / 1000;
  const q = quantiles(latencies);
  rows.push(row('projections', `fan-out to ${clients} clients p99 latency`, q.p99, 'ms', null));
  console.log(
    `fan-out to ${clients} clients: ${fmt(fanout)} events, ${fmt(delivered / seconds)} deliveries/s (${fmt(fanout / seconds)} events/s to all), latency p50 ${ms(q.p50)} p99 ${ms(q.p99)}, dropped ${events.hub.stats().dropped}`,
  );
  for (const s of sockets) s.socket.destroy();
  await gw.close();
  await events.stop();
  await bus.close();
}

async function main(): Promise<void> {
  console.log(`projections benchmark: ${fmt(total)} events, ${rounds} rounds`);
  const reuse = keep !== undefined && existsSync(keep);
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'svc-bench-projections-'));
  if (keep !== undefined) mkdirSync(dir, { recursive: true });
  try {
    const bus = await openBus({ type: 'memory', storeDir: dir });
    await ensureCatalogue(bus);
    const held = reuse ? (await bus.streamInfo(Streams.Events)).lastSeq : 0;
    if (held !== 0 && held !== total) throw new Error(`${dir} holds ${held} events, not ${total}`);
    if (held !== total) await fill(bus);
    let raw = 0;
    let projected = 0;
    let running: RunningProjection<EventsState> | null = null;
    for (let r = 0; r < rounds; r++) {
      raw = Math.max(raw, await rawReplay(bus));
      await running?.stop();
      const p = await projectionReplay(bus);
      projected = Math.max(projected, p.rate);
      running = p.running;
    }
    console.log(`bus raw replay             ${fmt(raw)} msg/s`);
    console.log(
      `events projection replay   ${fmt(projected)} events/s   ratio ${(projected / raw).toFixed(2)} (target >= 0.5)`,
    );
    rows.push(
      row(
        'projections',
        `events projection replay, ${fmt(total)} events (vs raw replay)`,
        projected,
        'events/s',
        raw,
        '>= 0.5',
      ),
    );
    if (only === 'replay') {
      await running!.stop();
      await bus.close();
      report(rows);
      return;
    }
    const heap = process.memoryUsage();
    console.log(
      `heap used after replay     ${fmt(heap.heapUsed / 1048576)} MiB (index of ${fmt(running!.state().index.size)} events)`,
    );
    await pages(bus, running!);
    await running!.stop();
    await bus.close();
    await fanOut();
  } finally {
    if (keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
  report(rows);
}

await main();
