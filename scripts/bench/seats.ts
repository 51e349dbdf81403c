/**
 * Seats benchmark (issue 8): the shipped node's turn engine (`svc serve` as a child on a JetStream
 * nats-server on loopback) against a zero-latency local model (`zero-llm.ts`, an OpenAI chat-completions
 * server in this process that answers at once). The company is applied with `PUT /config`; wakes go on the
 * seats' inboxes on the node's bus (as a message to a seat arrives) and a turn's end is its
 * `agent_turn_completed` event on the same bus. Three figures:
 *   1. turns/s across BENCH_SEATS agent seats (default 100) woken together, BENCH_TURNS wakes each
 *      (default 5), every turn plan → execute with BENCH_ROUNDS tool rounds (default 3, the node's
 *      `org_lookup` builtin) → review; baseline: the model-bound ceiling, the same request bodies sent as
 *      plain HTTP calls from this process at the same concurrency (through the node's own transport).
 *   2. engine overhead per tool round (target < 2 ms): one seat, turns one after another with 0 and with
 *      BENCH_LONG tool rounds (default 16); a turn's wall time (wake published → completion event) minus the
 *      model server's time (the recorded request bodies replayed as plain HTTP calls, one after another,
 *      through the node's own transport, so the client's cost is subtracted as the node pays it),
 *      per added tool round (the lookup's own in-memory time is counted with the engine's).
 *   3. resident memory of BENCH_IDLE idle agent seats (default 1,000; inbox consumers open): the RSS of a node
 *      holding them against a node of the same company without agent seats (two children, each read once
 *      its RSS holds still; target < 150 MB).
 *
 * Run (from the repository root, after `npm run build`; needs nats-server):
 *   node --import=tsx scripts/bench/seats.ts [--json]
 * BENCH_PART=throughput|overhead|memory runs one figure only.
 */
import { nodePost } from '../../actors/index.js';
import { ensureCatalogue, openBus, Subjects, type Bus, type Subscription } from '../../bus/index.js';
import type { InboxMessage } from '../../schema/index.js';
import { startNatsServer } from '../../test/harness/nats-server.js';
import { readFileSync } from 'node:fs';
import { putCompany, rssMiB, startServe, type ServedNode } from './node.js';
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

/** A company of `agents` agent seats in units of ten (each unit led by its first seat), and one human. */
function benchCompany(llmBaseUrl: string, agents: number): Record<string, unknown> {
  const units: Array<Record<string, unknown>> = [];
  for (let u = 0; u * 10 < agents; u++) {
    const roles = [];
    for (let i = u * 10; i < Math.min(agents, u * 10 + 10); i++)
      roles.push({
        handle: handleOf(i),
        name: `Seat ${i}`,
        goal: 'Echo what is asked',
        responsibilities: ['echo'],
        behavioral_guidelines: ['Be brief'],
      });
    units.push({ name: `Unit ${u}`, type: 'team', lead: handleOf(u * 10), roles });
  }
  return {
    name: 'Bench',
    mission: 'Measure the turn engine',
    vision: 'Fast seats',
    policies: ['Be kind'],
    timezone: 'UTC',
    providers: {
      llm: { local: { type: 'openai-compatible', model: 'zero-1', base_url: llmBaseUrl } },
      llm_order: ['local'],
    },
    units,
    roles: [{ name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } }],
  };
}

/** Wakes and completions on the node's bus, seen from this process. */
interface Seats {
  wake(handle: string, summary: string): Promise<void>;
  completed(): number;
  failed(): number;
  waitCompleted(n: number): Promise<void>;
  stop(): Promise<void>;
}

function watchSeats(bus: Bus): Seats {
  let done = 0;
  let failed = 0;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const sub: Subscription = bus.subscribe(Subjects.event('agent_turn_completed'), (msg) => {
    done += 1;
    const record = JSON.parse(decoder.decode(msg.data)) as { payload?: { failed?: unknown } };
    if (record.payload?.failed === true) failed += 1;
    for (const w of waiters.filter((w) => done >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  let wakes = 0;
  return {
    async wake(handle, summary) {
      wakes += 1;
      const message: InboxMessage = {
        id: `wake-${wakes}-${handle}-${Date.now()}`,
        kind: 'mention',
        source: 'bench',
        received_at: new Date().toISOString(),
        trace_id: (wakes.toString(16) + '0'.repeat(32)).slice(0, 32),
        summary,
        payload: {},
      };
      await bus.publish(Subjects.agentInbox(handle), encoder.encode(JSON.stringify(message)));
    },
    completed: () => done,
    failed: () => failed,
    waitCompleted: (n) =>
      done >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    stop: () => sub.stop(),
  };
}

/**
 * Plain HTTP calls with the recorded bodies, `lanes` at a time, through the node's own transport (so what is
 * subtracted is the model server's time and the same client's cost); wall milliseconds for all.
 */
async function rawCalls(llm: ZeroLlm, bodies: readonly string[], lanes: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const lane = async (): Promise<void> => {
    // One signal a lane, as a turn has its own (a hundred requests on one signal trip Node's listener warning).
    const signal = new AbortController().signal;
    while (next < bodies.length) {
      const body = bodies[next++] as string;
      const answer = await nodePost(llm.url, {
        headers: { 'content-type': 'application/json' },
        body,
        signal,
      });
      await answer.text();
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return performance.now() - started;
}

/** Figure 1: every seat woken `turnsPerSeat` times at once. */
async function throughput(s: Seats, llm: ZeroLlm): Promise<void> {
  for (let i = 0; i < seats; i++) await s.wake(handleOf(i), `warm up, rounds=${rounds}`);
  await s.waitCompleted(seats);
  const before = s.completed();
  const failed0 = s.failed();
  const calls0 = llm.count();
  llm.record();
  const started = performance.now();
  for (let k = 0; k < turnsPerSeat; k++)
    for (let i = 0; i < seats; i++) await s.wake(handleOf(i), `please echo, rounds=${rounds}`);
  const total = seats * turnsPerSeat;
  await s.waitCompleted(before + total);
  const ms = performance.now() - started;
  const bodies = llm.stopRecording();
  const calls = llm.count() - calls0;
  const raw = await rawCalls(llm, bodies, seats);
  rows.push(
    row(
      'seats',
      `turns on a node, ${seats} seats (vs plain HTTP ceiling)`,
      total / (ms / 1000),
      'turns/s',
      total / (raw / 1000),
    ),
  );
  console.log(
    `${fmt(total)} turns on ${seats} seats (${fmt(calls / total, 1)} model calls, ${rounds} tool calls each) in ${fmt(ms / 1000, 2)} s: ${fmt(total / (ms / 1000), 1)} turns/s; failed turns ${s.failed() - failed0}`,
  );
  console.log(
    `  plain HTTP, same ${fmt(calls)} bodies, ${seats} in flight: ${fmt(total / (raw / 1000), 1)} turns/s ceiling; ratio ${fmt(raw / ms, 2)}`,
  );
}

/** CPU time (user + system) a process has used, in ms, from /proc (10 ms ticks). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The processes whose CPU a turn costs: the node and its nats-server. */
interface Pids {
  readonly node: number;
  readonly nats: number;
}

/** One seat's turns one after another: wall ms, CPU ms, model calls and the recorded bodies. */
async function serial(s: Seats, llm: ZeroLlm, pids: Pids, toolRounds: number, turns: number) {
  const before = s.completed();
  const calls0 = llm.count();
  llm.record();
  const cpu0 = { node: cpuMs(pids.node), nats: cpuMs(pids.nats) };
  const started = performance.now();
  for (let k = 0; k < turns; k++) {
    await s.wake(handleOf(0), `please echo, rounds=${toolRounds}`);
    await s.waitCompleted(before + k + 1);
  }
  const ms = performance.now() - started;
  const cpu = { node: cpuMs(pids.node) - cpu0.node, nats: cpuMs(pids.nats) - cpu0.nats };
  return { ms, cpu, calls: llm.count() - calls0, bodies: llm.stopRecording() };
}

/** Figure 2: the node's own time per added tool round. */
async function overhead(s: Seats, llm: ZeroLlm, pids: Pids): Promise<void> {
  await serial(s, llm, pids, longRounds, 3); // warm-up
  const measure = async (toolRounds: number) => {
    const run = await serial(s, llm, pids, toolRounds, serialTurns);
    const raw = Math.min(await rawCalls(llm, run.bodies, 1), await rawCalls(llm, run.bodies, 1));
    return { ...run, raw, engine: run.ms - raw };
  };
  const short = await measure(0);
  const long = await measure(longRounds);
  for (const [r, n] of [
    [short, 0],
    [long, longRounds],
  ] as const)
    console.log(
      `  ${serialTurns} turns of ${n} tool rounds (${fmt(r.calls / serialTurns, 1)} model calls): wall ${fmt(r.ms / serialTurns, 2)} ms/turn = model HTTP ${fmt(r.raw / serialTurns, 2)} + node ${fmt(r.engine / serialTurns, 2)}; CPU ms/turn: node ${fmt(r.cpu.node / serialTurns, 2)}, nats-server ${fmt(r.cpu.nats / serialTurns, 2)}`,
    );
  const perRound = (long.engine - short.engine) / serialTurns / longRounds;
  rows.push(row('seats', 'node overhead per tool round', perRound, 'ms', null, '< 2 ms'));
  const cpuPerRound = (which: keyof Pids): string =>
    fmt((long.cpu[which] - short.cpu[which]) / serialTurns / longRounds, 2);
  console.log(
    `node overhead per tool round: ${fmt(perRound, 2)} ms (target < 2 ms), of which CPU: node ${cpuPerRound('node')} ms, nats-server ${cpuPerRound('nats')} ms; per turn besides its rounds (wake, plan, review, completion, bus round trips): ${fmt(short.engine / serialTurns, 2)} ms`,
  );
}

/** The child's RSS once it holds still (within 1 MiB over `still` samples half a second apart). */
async function steadyRss(pid: number, still = 8): Promise<number> {
  const samples: number[] = [];
  const deadline = performance.now() + 60_000;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    samples.push(rssMiB(pid));
    const window = samples.slice(-still);
    if (window.length === still && Math.max(...window) - Math.min(...window) < 1) return window.at(-1)!;
    if (performance.now() > deadline) return samples.at(-1)!;
  }
}

/** Figure 3: two memory-engine nodes, the company without and with `idle` agent seats. */
async function memory(llm: ZeroLlm): Promise<void> {
  const rss = async (agents: number): Promise<{ mib: number; applyMs: number }> => {
    const node = await startServe();
    try {
      const t0 = performance.now();
      await putCompany(node, benchCompany(llm.baseUrl, agents), `${agents} agent seats`);
      const applyMs = performance.now() - t0;
      return { mib: await steadyRss(node.pid), applyMs };
    } finally {
      await node.stop();
    }
  };
  const empty = await rss(0);
  const full = await rss(idle);
  const added = full.mib - empty.mib;
  rows.push(row('seats', `node RSS added by ${fmt(idle)} idle agent seats`, added, 'MB', null, '< 150 MB'));
  console.log(
    `${fmt(idle)} idle agent seats (applied in ${fmt(full.applyMs / 1000, 2)} s): node RSS ${fmt(empty.mib, 1)} MiB without -> ${fmt(full.mib, 1)} MiB with: +${fmt(added, 1)} MiB (target < 150 MB); ${fmt((added * 1024) / Math.max(1, idle), 1)} KiB per seat`,
  );
}

async function onNode(llm: ZeroLlm): Promise<void> {
  const nats = await startNatsServer();
  let node: ServedNode | null = null;
  const bus = await openBus({ type: 'jetstream', url: nats.url });
  try {
    await ensureCatalogue(bus);
    node = await startServe({ queue: `type: jetstream, url: "${nats.url}"`, store: false });
    await putCompany(node, benchCompany(llm.baseUrl, seats));
    const s = watchSeats(bus);
    try {
      if (part === 'all' || part === 'overhead') {
        console.log('node overhead (one seat, turns one after another):');
        await overhead(s, llm, { node: node.pid, nats: nats.pid });
      }
      if (part === 'all' || part === 'throughput') await throughput(s, llm);
    } finally {
      await s.stop();
    }
  } finally {
    await node?.stop();
    await bus.close();
    await nats.stop();
  }
}

async function main(): Promise<void> {
  console.log(
    `seats benchmark on svc serve: zero-latency local model; ${seats} seats x ${turnsPerSeat} turns of ${rounds} tool rounds; overhead over ${serialTurns} serial turns; ${fmt(idle)} idle seats`,
  );
  const llm = await startZeroLlm();
  try {
    if (part !== 'memory') await onNode(llm);
    if (part === 'all' || part === 'memory') await memory(llm);
  } finally {
    await llm.close();
  }
  report(rows);
}

await main();
