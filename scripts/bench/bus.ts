/**
 * Bus benchmark: acked publishes/s and replay messages/s for the memory engine (pure memory, and
 * persisted under a store directory) and the JetStream engine, plus raw `@nats-io/jetstream` publishing
 * measured in the same run and the engine's ratio to it (target ≥ 0.8). Targets (issue 2): memory
 * ≥ 50,000 acked publishes/s and ≥ 300,000 messages/s replay on 2 cores.
 *
 * The engines are the parts under every node-level benchmark: their rows are the baselines those compare with.
 *
 * Run (from the repository root; nats-server from the Debian package `nats-server`):
 *   node --import=tsx scripts/bench/bus.ts [--json]
 * Options (environment): BENCH_MESSAGES (default 50000 per measurement), BENCH_WINDOW (publishes in
 * flight, default 256), BENCH_SIZE (payload bytes, default 128), BENCH_ROUNDS (default 3; the JetStream
 * engine and the raw client are measured that many times, interleaved, and the best of each kept).
 *
 * Both publishers use the same concurrency model: `BENCH_WINDOW` lanes, each awaiting its publish's
 * acknowledgement before sending the next, in one Node process.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBus, type Bus, type OpenBusOptions } from '../../bus/index.js';
import { report, row, type BenchRow } from './table.js';

const messages = Number(process.env['BENCH_MESSAGES'] ?? 50_000);
const window = Number(process.env['BENCH_WINDOW'] ?? 256);
const size = Number(process.env['BENCH_SIZE'] ?? 128);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const rawScript = join(root, 'bus', 'bench', 'jetstream-raw.ts');

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** A private nats-server -js on a random port and temporary store, stopped by pid at the end. */
async function startNats(): Promise<{ url: string; stop(): Promise<void> }> {
  const binary = existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-nats-'));
  const port = await freePort();
  const child = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let log = '';
    child.once('exit', (code) => reject(new Error(`nats-server exited (${code}): ${log}`)));
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Server is ready')) resolve();
    });
  });
  child.stderr.resume();
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Acked publishes per second with `window` publishes in flight; `ids` gives each a message id. */
async function publishRate(bus: Bus, subject: string, ids?: readonly string[]): Promise<number> {
  const payload = new Uint8Array(size);
  let next = 0;
  const started = process.hrtime.bigint();
  const lane = async () => {
    while (next < messages) {
      const id = ids?.[next];
      next += 1;
      await bus.publish(subject, payload, id === undefined ? undefined : { msgId: id });
    }
  };
  await Promise.all(Array.from({ length: window }, lane));
  return messages / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** Messages per second reading the whole stream in order. */
async function replayRate(bus: Bus, stream: string): Promise<number> {
  const started = process.hrtime.bigint();
  let count = 0;
  for await (const _msg of bus.replay(stream)) count += 1;
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** Raw client throughput, measured by bus/bench/jetstream-raw.ts in its own process. */
async function rawRate(url: string, stream: string, subject: string): Promise<number> {
  const args = JSON.stringify({ url, stream, subject, messages, window, size });
  const child = spawn(process.execPath, [...process.execArgv, rawScript, args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`raw benchmark failed (exit ${code})`);
  return (JSON.parse(out.trim().split('\n').pop() ?? '{}') as { perSecond: number }).perSecond;
}

const rows: BenchRow[] = [];
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US').padStart(10);

async function memory(label: string, opts: OpenBusOptions): Promise<void> {
  const bus = await openBus(opts);
  try {
    await bus.ensureStream({ name: 'BENCH', subjects: ['bench.>'] });
    const publish = await publishRate(bus, 'bench.x');
    const replay = await replayRate(bus, 'BENCH');
    console.log(`${label.padEnd(28)} publish/ack ${fmt(publish)} msg/s   replay ${fmt(replay)} msg/s`);
    rows.push(row('bus', `${label} acked publish`, publish, 'msg/s', null, '>= 50000 msg/s'));
    rows.push(row('bus', `${label} replay`, replay, 'msg/s', null, '>= 300000 msg/s'));
    // Events and vendors' deliveries carry random ids (de-duplication): against the plain rate just measured.
    await bus.ensureStream({ name: 'BENCH_IDS', subjects: ['ids.>'] });
    const withIds = await publishRate(
      bus,
      'ids.x',
      Array.from({ length: messages }, () => randomUUID()),
    );
    console.log(`${label.padEnd(28)} publish/ack ${fmt(withIds)} msg/s with random message ids`);
    rows.push(row('bus', `${label} acked publish, random message ids`, withIds, 'msg/s', publish));
  } finally {
    await bus.close();
  }
}

async function main(): Promise<void> {
  console.log(`bus benchmark: ${messages} messages of ${size} bytes, ${window} in flight`);
  await memory('memory (pure)', { type: 'memory' });
  const storeDir = mkdtempSync(join(tmpdir(), 'svc-bench-mem-'));
  try {
    await memory('memory (store_dir)', { type: 'memory', storeDir });
  } finally {
    rmSync(storeDir, { recursive: true, force: true });
  }

  const nats = await startNats();
  const bus = await openBus({ type: 'jetstream', url: nats.url });
  try {
    let engine = 0;
    let raw = 0;
    let replay = 0;
    for (let round = 0; round < rounds; round += 1) {
      // Fresh streams each round, same configuration for both publishers.
      await bus.ensureStream({ name: `RAW${round}`, subjects: [`raw${round}.>`] });
      await bus.ensureStream({ name: `ENG${round}`, subjects: [`eng${round}.>`] });
      raw = Math.max(raw, await rawRate(nats.url, `RAW${round}`, `raw${round}.x`));
      engine = Math.max(engine, await publishRate(bus, `eng${round}.x`));
      replay = Math.max(replay, await replayRate(bus, `ENG${round}`));
    }
    console.log(
      `${'jetstream engine'.padEnd(28)} publish/ack ${fmt(engine)} msg/s   replay ${fmt(replay)} msg/s`,
    );
    console.log(`${'raw @nats-io/jetstream'.padEnd(28)} publish/ack ${fmt(raw)} msg/s`);
    const ratio = engine / raw;
    console.log(
      `jetstream engine / raw client: ${ratio.toFixed(2)} (target >= 0.80) ${ratio >= 0.8 ? 'ok' : 'BELOW TARGET'}`,
    );
    rows.push(row('bus', 'jetstream engine acked publish (vs raw client)', engine, 'msg/s', raw, '>= 0.8'));
    rows.push(row('bus', 'jetstream engine replay', replay, 'msg/s', null));
  } finally {
    await bus.close();
    await nats.stop();
  }
  report(rows);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
