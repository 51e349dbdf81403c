/**
 * Projections benchmark (issue 7): BENCH_EVENTS stored events (default 200,000) on the memory engine under a
 * temporary store directory, measured on the shipped node (`svc serve` on that store, a child):
 *   1. the events projection's replay at the node's boot (its `projection ready` log line: `replayed` records
 *      in `replay_ms`) against the raw read of the same stream in this process (the bus's replay, nothing
 *      decoded), BENCH_ROUNDS runs each (default 3, interleaved, checkpoints removed before each boot so the
 *      node replays from zero); the row is the median run's rate and the median ratio (target >= 0.5);
 *   2. `/events` answer latency through HTTP on that node (newest page, a deep page, filtered pages, by id, by
 *      trace) against the same query functions in this process over the same store (the baseline).
 * WebSocket fan-out is not measured here: `dashboard.ts` measures it on a node, with clients in forked
 * processes.
 *
 * Run (from the repository root, after `npm run build`): node --import=tsx scripts/bench/projections.ts [--json]
 * Options (environment): BENCH_EVENTS, BENCH_ROUNDS; BENCH_ONLY=replay measures the replay ratio alone;
 * BENCH_STORE=<dir> keeps the filled store there and reuses it on the next run when it already holds the
 * events (so repeated runs, e.g. under `node --cpu-prof`, skip the fill).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCatalogue, newEvent, openBus, publishEvent, Streams, type Bus } from '../../bus/index.js';
import {
  decodeRecord,
  eventsProjection,
  getEvent,
  listEvents,
  parseListQuery,
  runProjection,
  traceEvents,
  type EventsSource,
} from '../../projections/index.js';
import { categoryOf, type EventRecord } from '../../schema/index.js';
import { auth, quantile, startServe, type ServedNode } from './node.js';
import { report, row, type BenchRow } from './table.js';

const total = Number(process.env['BENCH_EVENTS'] ?? 200_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
const only = process.env['BENCH_ONLY'];
const keep = process.env['BENCH_STORE'];
const window = 512;
const types = [
  'agent_phase_completed',
  'agent_phase_started',
  'TaskCreated',
  'webhook_received',
  'auxiliary_spend',
];
const seats = Array.from({ length: 40 }, (_, i) => `seat-${i}`);
const trace = 'f'.repeat(32);
const rows: BenchRow[] = [];
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number): string => `${n.toFixed(2)} ms`;
const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

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
    ...(i % 50 === 0 ? { trace: { trace_id: trace, parent_span_id: null } } : {}),
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
    while (next < total) await publishEvent(bus, sample(next++, base));
  };
  await Promise.all(Array.from({ length: window }, lane));
  console.log(`stored ${fmt(total)} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** The store opened in this process for the duration of `run` (never while the node has it open). */
async function withStore<T>(store: string, run: (bus: Bus) => Promise<T>): Promise<T> {
  const bus = await openBus({ type: 'memory', storeDir: store });
  try {
    await ensureCatalogue(bus);
    return await run(bus);
  } finally {
    await bus.close();
  }
}

/** The baseline: the events stream read in this process, nothing decoded; messages/s. */
async function rawRead(bus: Bus): Promise<number> {
  const started = performance.now();
  let n = 0;
  for await (const m of bus.replay(Streams.Events)) n += m.data.length > 0 ? 1 : 0;
  return n / ((performance.now() - started) / 1000);
}

/** A node booted on the store from zero (its checkpoints removed); resolves with it and its replay rate. */
async function bootNode(
  dir: string,
  store: string,
): Promise<{ node: ServedNode; rate: number; replayed: number }> {
  for (const f of readdirSync(store)) if (f.startsWith('projections.sqlite')) rmSync(join(store, f));
  const node = await startServe({ dir });
  const ready = await node.waitForLog((l) => l.msg === 'projection ready' && l['projection'] === 'events');
  const replayed = Number(ready['replayed']);
  const took = Number(ready['replay_ms']);
  return { node, rate: replayed / (Math.max(took, 0.1) / 1000), replayed };
}

function summary(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: quantile(s, 0.5), p99: quantile(s, 0.99) };
}

async function timed(times: number, run: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await run();
    samples.push(performance.now() - t0);
  }
  return samples;
}

/** The `/events` reads both sides answer: a label, the query string or path, and how often. */
interface Read {
  readonly label: string;
  readonly times: number;
  readonly http: string;
  readonly local: (src: EventsSource) => Promise<unknown>;
}

async function reads(bus: Bus): Promise<Read[]> {
  // The cursors and ids come from this process's projection of the same store.
  const running = await runProjection({ bus, projection: eventsProjection });
  const index = running.state().index;
  const m = Math.floor(index.size / 2);
  const middle = `before_time=${new Date(index.instantAt(m).ms).toISOString()}&before_id=${index.idAt(m)}`;
  const id = index.idAt(Math.floor(index.size / 3));
  await running.stop();
  const list = (q: string) => (src: EventsSource) => listEvents(src, parseListQuery(new URLSearchParams(q)));
  return [
    {
      label: '/events newest page (400 rows)',
      times: 50,
      http: '/events?limit=400',
      local: list('limit=400'),
    },
    {
      label: '/events page in the middle (400 rows)',
      times: 50,
      http: `/events?limit=400&${middle}`,
      local: list(`limit=400&${middle}`),
    },
    {
      label: '/events feed_only + seat filter (400 rows)',
      times: 50,
      http: '/events?limit=400&feed_only=true&agent_id=seat-7',
      local: list('limit=400&feed_only=true&agent_id=seat-7'),
    },
    {
      label: '/events category=webhook (100 rows)',
      times: 50,
      http: '/events?limit=100&category=webhook',
      local: list('limit=100&category=webhook'),
    },
    { label: '/events/{id}', times: 50, http: `/events/${id}`, local: (src) => getEvent(src, id) },
    {
      label: '/events/trace/{id}',
      times: 10,
      http: `/events/trace/${trace}`,
      local: (src) => traceEvents(src, trace),
    },
  ];
}

async function overHttp(node: ServedNode, list: readonly Read[]): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  for (const r of list) {
    const get = async (): Promise<void> => {
      const res = await fetch(`${node.url}${r.http}`, { headers: auth });
      if (res.status !== 200) throw new Error(`GET ${r.http} answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    };
    await get(); // warm-up
    out.set(r.label, await timed(r.times, get));
  }
  return out;
}

async function inProcess(bus: Bus, list: readonly Read[]): Promise<Map<string, number[]>> {
  const running = await runProjection({ bus, projection: eventsProjection });
  const src: EventsSource = {
    state: () => running.state(),
    fetch: async (seq) => {
      const m = await bus.getMessage(Streams.Events, seq);
      return m ? decodeRecord(m.data) : null;
    },
    node: 'bench',
    historySeconds: 30 * 24 * 3600,
  };
  const out = new Map<string, number[]>();
  try {
    for (const r of list) {
      await r.local(src);
      out.set(r.label, await timed(r.times, () => r.local(src)));
    }
  } finally {
    await running.stop();
  }
  return out;
}

async function main(): Promise<void> {
  console.log(`projections benchmark: ${fmt(total)} events, ${rounds} rounds, on a svc serve child`);
  const reuse = keep !== undefined && existsSync(keep);
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'svc-bench-projections-'));
  mkdirSync(dir, { recursive: true });
  // startServe keeps the memory engine's store under `<dir>/data`.
  const store = join(dir, 'data');
  try {
    const list = await withStore(store, async (bus) => {
      const held = reuse ? (await bus.streamInfo(Streams.Events)).lastSeq : 0;
      // A kept store also holds the node's own boot events: filled once when it holds fewer than asked.
      if (held < total) await fill(bus);
      // The cursors and ids the reads use, taken before any node holds the store (the engine is one process's).
      return only === 'replay' ? [] : reads(bus);
    });
    const raws: number[] = [];
    const boots: number[] = [];
    const ratios: number[] = [];
    let last: ServedNode | null = null;
    for (let r = 0; r < rounds; r++) {
      const raw = await withStore(store, rawRead);
      const boot = await bootNode(dir, store);
      raws.push(raw);
      boots.push(boot.rate);
      ratios.push(boot.rate / raw);
      console.log(
        `round ${r + 1}: raw read ${fmt(raw)} msg/s; node boot replayed ${fmt(boot.replayed)} at ${fmt(boot.rate)} events/s; ratio ${(boot.rate / raw).toFixed(2)}`,
      );
      if (r === rounds - 1 && list.length > 0) last = boot.node;
      else await boot.node.stop();
    }
    const ratio = median(ratios);
    const at = ratios.indexOf(ratio);
    console.log(`median ratio ${ratio.toFixed(2)} (target >= 0.5)`);
    rows.push(
      row(
        'projections',
        `events projection replay at node boot, ${fmt(total)} events (vs raw read, median of ${rounds})`,
        boots[at] ?? 0,
        'events/s',
        raws[at] ?? null,
        '>= 0.5',
      ),
    );
    if (last !== null) {
      const node = last;
      let http: Map<string, number[]>;
      try {
        http = await overHttp(node, list);
      } finally {
        await node.stop();
      }
      const local = await withStore(store, (bus) => inProcess(bus, list));
      for (const r of list) {
        const h = summary(http.get(r.label) ?? []);
        const l = summary(local.get(r.label) ?? []);
        console.log(
          `${r.label.padEnd(44)} HTTP p50 ${ms(h.p50)} p99 ${ms(h.p99)}   in process p50 ${ms(l.p50)} p99 ${ms(l.p99)}`,
        );
        rows.push(row('projections', `${r.label} p50 via HTTP (vs in process)`, h.p50, 'ms', l.p50));
      }
    }
  } finally {
    if (keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
  report(rows);
}

await main();
