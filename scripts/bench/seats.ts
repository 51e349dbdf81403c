/**
 * Seats benchmark (issue 8): the turn engine against a zero-latency local model (an OpenAI
 * chat-completions server in this process that answers at once), one run, three figures:
 *   1. turns/s across BENCH_SEATS agent seats (default 100) woken together, BENCH_TURNS wakes each
 *      (default 5), every turn plan → execute with BENCH_ROUNDS tool rounds (default 3) → review; next
 *      to the model-bound ceiling: the same request bodies sent as plain HTTP calls from this process
 *      at the same concurrency. Memory engine; with BENCH_JETSTREAM=1 also JetStream (an embedded
 *      `nats-server` on a free port, temporary store).
 *   2. engine overhead per tool round (target < 2 ms): one seat, turns one after another with 0 and
 *      with BENCH_LONG tool rounds (default 16); a turn's wall time minus the model server's time
 *      (the recorded request bodies replayed as plain HTTP calls, one after another, in the same run)
 *      minus the tool's own time, per model call and per added tool round.
 *   3. resident memory of 1,000 idle agent seats (BENCH_IDLE; inbox consumers open) above the same node
 *      without agent seats, after GC, in a child process started with --expose-gc (target < 150 MB).
 *
 * The subject is the seats runtime wired in this process (seats-node.ts), not a `svc serve` child.
 *
 * Run (from the repository root): node --import=tsx scripts/bench/seats.ts [--json]
 * BENCH_PART=throughput|overhead|memory runs one figure only.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBus, type Bus } from '../../bus/index.js';
import { benchCompany, startSeatsNode, type SeatsNode } from './seats-node.js';
import { report, row, type BenchRow } from './table.js';
import { startZeroLlm, type ZeroLlm } from './zero-llm.js';

const seats = Number(process.env['BENCH_SEATS'] ?? 100);
const turnsPerSeat = Number(process.env['BENCH_TURNS'] ?? 5);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
const longRounds = Number(process.env['BENCH_LONG'] ?? 16);
const serialTurns = Number(process.env['BENCH_SERIAL'] ?? 30);
const idle = Number(process.env['BENCH_IDLE'] ?? 1000);
const part = process.env['BENCH_PART'] ?? 'all';
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const rows: BenchRow[] = [];
const handleOf = (i: number): string => `s${String(i).padStart(4, '0')}`;

/** CPU milliseconds (user + system) this process has used. */
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Plain HTTP calls with the recorded bodies, `lanes` at a time; wall and CPU milliseconds for all. */
async function rawCalls(
  llm: ZeroLlm,
  bodies: readonly string[],
  lanes: number,
): Promise<{ ms: number; cpu: number }> {
  let next = 0;
  const cpu0 = cpuMs();
  const started = performance.now();
  const lane = async (): Promise<void> => {
    while (next < bodies.length) {
      const body = bodies[next++] as string;
      const res = await fetch(llm.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await res.text();
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return { ms: performance.now() - started, cpu: cpuMs() - cpu0 };
}

async function withNode<T>(
  bus: Bus,
  llm: ZeroLlm,
  agents: number,
  run: (node: SeatsNode) => Promise<T>,
): Promise<T> {
  const node = await startSeatsNode(bus);
  try {
    await node.apply(benchCompany(llm.baseUrl, agents));
    return await run(node);
  } finally {
    await node.stop();
  }
}

/** Figure 1: every seat woken `turnsPerSeat` times at once. */
async function throughput(label: string, bus: Bus, llm: ZeroLlm): Promise<void> {
  await withNode(bus, llm, seats, async (node) => {
    // Warm-up: one turn per seat (JIT, sockets, consumers).
    for (let i = 0; i < seats; i++) await node.wake(handleOf(i), `warm up, rounds=${rounds}`);
    await node.waitCompleted(seats);
    const before = node.completed();
    const failed0 = node.failed();
    const calls0 = llm.count();
    const tools0 = node.tool();
    llm.record();
    const cpu0 = cpuMs();
    const started = performance.now();
    for (let k = 0; k < turnsPerSeat; k++)
      for (let i = 0; i < seats; i++) await node.wake(handleOf(i), `please echo, rounds=${rounds}`);
    const total = seats * turnsPerSeat;
    await node.waitCompleted(before + total);
    const ms = performance.now() - started;
    const cpu = cpuMs() - cpu0;
    const bodies = llm.stopRecording();
    const calls = llm.count() - calls0;
    const toolMs = node.tool().ms - tools0.ms;
    const { ms: raw, cpu: rawCpu } = await rawCalls(llm, bodies, seats);
    const perTurn = calls / total;
    rows.push(
      row(
        'seats',
        `${label} turns, ${seats} seats (vs plain HTTP ceiling)`,
        total / (ms / 1000),
        'turns/s',
        total / (raw / 1000),
      ),
    );
    console.log(
      `${label}: ${fmt(total)} turns on ${seats} seats (${fmt(perTurn, 1)} model calls and ${rounds} tool calls each) in ${fmt(ms / 1000, 2)} s`,
    );
    console.log(
      `  ${fmt(total / (ms / 1000), 1)} turns/s, ${fmt(calls / (ms / 1000))} model calls/s; CPU ${fmt(cpu / total, 2)} ms per turn; tool time ${fmt(toolMs, 1)} ms; failed turns ${node.failed() - failed0}`,
    );
    console.log(
      `  plain HTTP, same ${fmt(calls)} bodies, ${seats} in flight: ${fmt(calls / (raw / 1000))} calls/s = ${fmt(total / (raw / 1000), 1)} turns/s ceiling (CPU ${fmt(rawCpu / total, 2)} ms per turn); ratio ${fmt(raw / ms, 2)}`,
    );
  });
}

/** One seat's turns one after another; wall ms, model calls and recorded bodies. */
async function serial(node: SeatsNode, llm: ZeroLlm, toolRounds: number, turns: number) {
  const before = node.completed();
  const calls0 = llm.count();
  const tool0 = node.tool();
  llm.record();
  const cpu0 = cpuMs();
  const started = performance.now();
  for (let k = 0; k < turns; k++) {
    await node.wake(handleOf(0), `please echo, rounds=${toolRounds}`);
    await node.waitCompleted(before + k + 1);
  }
  const ms = performance.now() - started;
  const cpu = cpuMs() - cpu0;
  const bodies = llm.stopRecording();
  const tool = node.tool();
  return {
    ms,
    cpu,
    calls: llm.count() - calls0,
    bodies,
    toolMs: tool.ms - tool0.ms,
    toolCalls: tool.calls - tool0.calls,
  };
}

/** Figure 2: the engine's own time per model call and per added tool round. */
async function overhead(bus: Bus, llm: ZeroLlm): Promise<void> {
  await withNode(bus, llm, seats, async (node) => {
    await serial(node, llm, longRounds, 5); // warm-up
    const measure = async (toolRounds: number) => {
      const run = await serial(node, llm, toolRounds, serialTurns);
      // Best of two baselines: the fixture's and the HTTP client's own time for these exact bodies.
      const [a, b] = [await rawCalls(llm, run.bodies, 1), await rawCalls(llm, run.bodies, 1)];
      const raw = Math.min(a.ms, b.ms);
      const rawCpu = Math.min(a.cpu, b.cpu);
      return { ...run, raw, engine: run.ms - raw - run.toolMs, engineCpu: run.cpu - rawCpu - run.toolMs };
    };
    const short = await measure(0);
    const long = await measure(longRounds);
    for (const r of [short, long]) {
      const n = serialTurns;
      console.log(
        `  ${n} turns of ${r.toolCalls / n} tool rounds (${r.calls / n} model calls): wall ${fmt(r.ms / n, 2)} ms/turn = model HTTP ${fmt(r.raw / n, 2)} + tool ${fmt(r.toolMs / n, 3)} + engine ${fmt(r.engine / n, 2)} (${fmt(r.engine / r.calls, 2)} per model call); engine CPU ${fmt(r.engineCpu / n, 2)} ms/turn (${fmt(r.engineCpu / r.calls, 2)} per model call)`,
      );
    }
    const added = (long.toolCalls - short.toolCalls) / serialTurns;
    const perRound = (long.engine - short.engine) / serialTurns / added;
    const perRoundCpu = (long.engineCpu - short.engineCpu) / serialTurns / added;
    rows.push(row('seats', 'engine overhead per tool round', perRound, 'ms', null, '< 2 ms'));
    console.log(
      `engine overhead per tool round: ${fmt(perRound, 2)} ms wall, ${fmt(perRoundCpu, 2)} ms CPU (target < 2 ms) ${perRound < 2 ? 'met' : 'MISSED'}; per turn besides its rounds (wake, plan, review, completion): ${fmt(short.engine / serialTurns, 2)} ms wall`,
    );
  });
}

/**
 * Collects garbage until the resident size holds still: the module loader's thread (TypeScript
 * compiled on the fly) gives its memory back only after some seconds idle, so a reading taken
 * before that would count its release against the seats.
 */
const settle = async (stillFor: number): Promise<void> => {
  const gc = (globalThis as { gc?: () => void }).gc;
  const samples: number[] = [];
  const deadline = performance.now() + 30_000;
  for (;;) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 500));
    samples.push(process.memoryUsage().rss);
    const window = samples.slice(-stillFor);
    if (window.length === stillFor && Math.max(...window) - Math.min(...window) < 1048576) return;
    if (performance.now() > deadline) return;
  }
};
const mb = (bytes: number): number => bytes / 1048576;

/** Figure 3, in a child process of its own (a clean heap, --expose-gc). */
async function memoryChild(): Promise<void> {
  const llm = await startZeroLlm();
  const bus = await openBus({ type: 'memory' });
  const node = await startSeatsNode(bus);
  await node.apply(benchCompany(llm.baseUrl, 0));
  // 8 s still: the loader's thread lets go of its memory after about 6 s idle.
  await settle(16);
  const empty = process.memoryUsage();
  const started = performance.now();
  await node.apply(benchCompany(llm.baseUrl, idle));
  const applyMs = performance.now() - started;
  await settle(6);
  const full = process.memoryUsage();
  process.stdout.write(
    `${JSON.stringify({ empty, full, applyMs, seats: node.runtime.seats().length, gc: typeof (globalThis as { gc?: unknown }).gc === 'function' })}\n`,
  );
  await node.stop();
  await bus.close();
  await llm.close();
}

async function memory(): Promise<void> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, '--expose-gc', fileURLToPath(import.meta.url)],
    {
      env: { ...process.env, BENCH_PART: 'memory-child' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`memory child failed (exit ${code})`);
  const r = JSON.parse(out.trim().split('\n').pop() ?? '{}') as {
    empty: NodeJS.MemoryUsage;
    full: NodeJS.MemoryUsage;
    applyMs: number;
    seats: number;
    gc: boolean;
  };
  const rss = mb(r.full.rss - r.empty.rss);
  rows.push(row('seats', `RSS of ${fmt(r.seats)} idle agent seats`, rss, 'MB', null, '< 150 MB'));
  console.log(
    `${fmt(r.seats)} idle agent seats (applied in ${fmt(r.applyMs / 1000, 2)} s, inboxes open)${r.gc ? ', after GC' : ' (no --expose-gc)'}:`,
  );
  console.log(
    `  RSS ${fmt(mb(r.empty.rss), 1)} MB empty -> ${fmt(mb(r.full.rss), 1)} MB: +${fmt(rss, 1)} MB (target < 150 MB) ${rss < 150 ? 'met' : 'MISSED'}; ${fmt((rss * 1024) / Math.max(1, r.seats), 1)} KB per seat`,
  );
  console.log(
    `  heap used ${fmt(mb(r.empty.heapUsed), 1)} -> ${fmt(mb(r.full.heapUsed), 1)} MB (+${fmt(mb(r.full.heapUsed - r.empty.heapUsed), 1)}), external +${fmt(mb(r.full.external - r.empty.external), 1)} MB`,
  );
}

async function main(): Promise<void> {
  if (part === 'memory-child') return memoryChild();
  console.log(
    `seats benchmark: zero-latency local model; ${seats} seats x ${turnsPerSeat} turns of ${rounds} tool rounds; overhead over ${serialTurns} serial turns; ${fmt(idle)} idle seats`,
  );
  const llm = await startZeroLlm();
  try {
    if (part === 'all' || part === 'overhead') {
      const bus = await openBus({ type: 'memory' });
      try {
        console.log('engine overhead (memory engine, one seat, turns one after another):');
        await overhead(bus, llm);
      } finally {
        await bus.close();
      }
    }
    if (part === 'all' || part === 'throughput') {
      const bus = await openBus({ type: 'memory' });
      try {
        await throughput('memory engine', bus, llm);
      } finally {
        await bus.close();
      }
      if (process.env['BENCH_JETSTREAM'] === '1') {
        const dir = mkdtempSync(join(tmpdir(), 'svc-bench-seats-'));
        const js = await openBus({ type: 'jetstream-embedded', storeDir: dir });
        try {
          await throughput('JetStream (embedded nats-server)', js, llm);
        } finally {
          await js.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await llm.close();
  }
  if (part === 'all' || part === 'memory') await memory();
  report(rows);
}

await main();
