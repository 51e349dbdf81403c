/**
 * Stream fan-out benchmark (not a test): what the node spends handing a burst of live-view frames to every
 * connected dashboard. One in-process events subsystem behind a real gateway (memory bus), BENCH_CLIENTS
 * sockets (default 200) held by a forked process (scripts/bench/dashboard.clients.ts) so that their reading
 * costs this process nothing. Each round pushes BENCH_BURST `event` frames (default 50) through the hub in
 * one go and takes the CPU time of that synchronous push loop (encode once, queue check, hand to the transport per socket),
 * then waits until every socket has every frame, so no round starts behind the previous one.
 * Baseline, measured in the same run and alternated round by round: the same frames, already encoded as text,
 * sent by a bare fan-out on the HTTP library alone (http/bench/bare-fanout.ts) to as many sockets of a second forked
 * process: the transport alone, a string send per socket, with no queue or backpressure check.
 * Prints the median CPU time per frame for each and the ratio (hub / bare) over BENCH_ROUNDS rounds
 * (default 40). `--json`: the last stdout line is one JSON array of rows.
 *
 * Run (from the repository root): node --import=tsx scripts/bench/stream-fanout.ts [--json]
 * Every process it starts is stopped by pid when it ends.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { ensureCatalogue, newEvent, openMemoryBus } from '../../bus/index.js';
import { startBareFanout } from '../../http/bench/bare-fanout.js';
import { startGateway } from '../../http/index.js';
import { toRow } from '../../schema/index.js';
import { freePort } from '../../test/harness/free-port.js';
import { startEvents } from '../events-wiring.js';
import { fanoutSummary, type FromChild, type ToChild } from './dashboard.clients.js';
import { report, row } from './table.js';

const clients = Number(process.env['BENCH_CLIENTS'] ?? 200);
const burst = Number(process.env['BENCH_BURST'] ?? 50);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 40);
const childScript = fileURLToPath(new URL('./dashboard.clients.ts', import.meta.url));

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

/** A forked process holding `count` sockets to `url`, and a wait for `frames` more event frames on them. */
async function socketsTo(url: string, count: number) {
  const child = fork(childScript, [], { env: { ...process.env, BENCH_ROLE: 'clients' }, stdio: 'inherit' });
  const opened = reply(child, 'opened');
  tell(child, { kind: 'open', url, count });
  await opened;
  return {
    /** Resolves once the sockets together received `frames` event frames since the last call. */
    async received(frames: number): Promise<void> {
      let got = 0;
      while (got < frames) {
        const answered = reply(child, 'delays');
        tell(child, { kind: 'report' });
        got += (await answered).delays.length;
        if (got < frames) await new Promise((r) => setTimeout(r, 2));
      }
    },
    async stop(): Promise<void> {
      const exited = new Promise((r) => child.once('exit', r));
      tell(child, { kind: 'stop' });
      const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** This process's CPU time (user and system, µs) since `start`: the loop runs on this thread alone. */
const cpuSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return used.user + used.system;
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const bus = await openMemoryBus();
  await ensureCatalogue(bus);
  const logger = pino({ level: 'silent' });
  const events = await startEvents({
    bus,
    node: 'node-0',
    historySeconds: 3600,
    health: () => ({ status: 'ok', clients: events.hub.count() }),
    logger,
    healthIntervalMs: 3_600_000,
  });
  const gw = await startGateway({
    host: '127.0.0.1',
    port: await freePort(),
    ingress: true,
    auth: { disabled: false, allowAnonymousRead: true, tokens: [] },
    routes: events.routes(),
    stream: events.hub,
    logger,
    probes: {
      health: () => ({ status: 'ok', draining: false }),
      ready: () => ({ ready: true }),
      draining: () => false,
      configured: () => true,
    },
  });
  const bare = await startBareFanout('127.0.0.1', 0);
  const hubSockets = await socketsTo(`ws://127.0.0.1:${gw.port}/ws/stream`, clients);
  const bareSockets = await socketsTo(`ws://127.0.0.1:${bare.port}/`, clients);
  const base = toRow(
    newEvent({
      type: 'agent_phase_completed',
      category: 'lifecycle',
      source: 'seat/ada',
      summary: '',
      actor: 'ada',
      agent_id: 'ada',
    }),
  );
  const hubTimes: number[] = [];
  const bareTimes: number[] = [];
  let n = 0;
  try {
    // The first two rounds warm both paths up and are not counted.
    for (let r = 0; r < rounds + 2; r++) {
      const rows = Array.from({ length: burst }, () => ({
        ...base,
        id: `e-${n}`,
        summary: fanoutSummary(n++),
      }));
      let start = process.cpuUsage();
      for (const data of rows) events.hub.push('event', data, 'merge');
      // Reading the stats hands over whatever the hub holds back until the end of the turn: counted too.
      events.hub.stats();
      const hubUs = cpuSince(start);
      await hubSockets.received(burst * clients);
      // The baseline is handed text already encoded, as the hub encodes each frame once.
      const texts = rows.map((data) => JSON.stringify({ kind: 'event', data, ts: new Date().toISOString() }));
      start = process.cpuUsage();
      for (const text of texts) bare.broadcast(text);
      const bareUs = cpuSince(start);
      await bareSockets.received(burst * clients);
      if (r < 2) continue;
      hubTimes.push(hubUs / burst);
      bareTimes.push(bareUs / burst);
    }
  } finally {
    await hubSockets.stop();
    await bareSockets.stop();
    bare.close();
    await gw.close();
    await events.stop();
    await bus.close();
  }
  const hub = median(hubTimes);
  const baseline = median(bareTimes);
  const ratios = hubTimes.map((h, i) => h / bareTimes[i]!);
  console.log(
    `stream fan-out, ${clients} sockets, bursts of ${burst} frames, ${rounds} rounds: hub ${hub.toFixed(0)} CPU µs/frame, ` +
      `bare transport ${baseline.toFixed(0)} CPU µs/frame, ratio ${(hub / baseline).toFixed(2)} ` +
      `(per-round ratio median ${median(ratios).toFixed(2)})`,
  );
  const r = row(
    'stream-fanout',
    `push a frame to ${clients} sockets`,
    Math.round(hub),
    'µs',
    Math.round(baseline),
  );
  report([{ ...r, ratio: r.ratio === null ? null : Math.round(r.ratio * 100) / 100 }]);
}

await main();
