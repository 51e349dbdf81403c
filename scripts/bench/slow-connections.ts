/**
 * `/health` latency under slow connections (slowloris), for limits.ts: `slow` sockets to a running node each
 * send a partial request head and then one more header line every few seconds, never finishing it, while
 * a separate client measures `GET /health` (a new connection each, so accepting is measured too). The same
 * client measures first with no slow connections: the baseline. A slow socket the node closes is opened
 * again while the measurement lasts, so the pressure stays at `slow`. Every socket is destroyed at the end.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { row, type BenchRow } from './table.js';

export interface SlowOptions {
  readonly host: string;
  readonly port: number;
  /** Slow connections wanted (lowered to what the open-file limit allows). */
  readonly slow: number;
  /** Seconds each `/health` measurement lasts. */
  readonly seconds: number;
  /** Milliseconds between two header lines of one slow connection. */
  readonly lineEveryMs: number;
}

/** Sockets this process may still open: the soft open-file limit, less room for the node's own use. */
export function socketBudget(): { readonly limit: number; readonly usable: number } {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const soft = Number(line?.split(/\s{2,}/)[1]);
  const limit = Number.isFinite(soft) ? soft : 1024;
  return { limit, usable: Math.max(0, limit - 256) };
}

/** One `GET /health` on a new connection: milliseconds to the whole answer, or null when it failed. */
function probe(host: string, port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request({ host, port, path: '/health', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : null));
    });
    req.on('error', () => resolve(null));
    req.setTimeout(10_000, () => {
      req.destroy();
      resolve(null);
    });
    req.end();
  });
}

interface Latencies {
  readonly p50: number;
  readonly p99: number;
  readonly count: number;
  readonly failed: number;
}

/** Probes one after another for `seconds`. */
async function measure(host: string, port: number, seconds: number): Promise<Latencies> {
  const times: number[] = [];
  let failed = 0;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const ms = await probe(host, port);
    if (ms === null) failed += 1;
    else times.push(ms);
  }
  times.sort((a, b) => a - b);
  const at = (q: number): number => times[Math.max(0, Math.ceil(q * times.length) - 1)] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), count: times.length, failed };
}

/** Holds `count` slow connections open (re-opening what the node closes) until `stop()`. */
function holdSlow(host: string, port: number, count: number, lineEveryMs: number) {
  const sockets = new Set<Socket>();
  let stopped = false;
  let closedByNode = 0;
  let line = 0;
  const open = (): Promise<void> =>
    new Promise((resolve) => {
      const socket = connect({ host, port });
      sockets.add(socket);
      let first: NodeJS.Timeout | undefined;
      let timer: NodeJS.Timeout | undefined;
      const send = (): void => void socket.write(`X-Slow-${(line += 1)}: ${'a'.repeat(16)}\r\n`);
      socket.once('connect', () => {
        socket.write(`GET /health HTTP/1.1\r\nHost: ${host}\r\n`);
        // Staggered so the lines of all connections do not arrive at once.
        first = setTimeout(() => {
          send();
          timer = setInterval(send, lineEveryMs);
        }, Math.random() * lineEveryMs);
        resolve();
      });
      socket.on('error', () => resolve());
      socket.once('close', () => {
        clearTimeout(first);
        clearInterval(timer);
        sockets.delete(socket);
        if (stopped) return;
        closedByNode += 1;
        void open();
      });
    });
  return {
    /** Opens them in batches (a burst of thousands of connects would overflow the listen backlog). */
    async start(): Promise<void> {
      for (let opened = 0; opened < count && !stopped; opened += 100) {
        await Promise.all(Array.from({ length: Math.min(100, count - opened) }, open));
      }
    },
    stats: () => ({ open: [...sockets].filter((s) => !s.connecting && !s.destroyed).length, closedByNode }),
    stop(): void {
      stopped = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
  };
}

/** Measures the baseline, then the same under the slow connections; prints both and returns the rows. */
export async function slowConnectionRows(opts: SlowOptions): Promise<BenchRow[]> {
  const budget = socketBudget();
  const slow = Math.min(opts.slow, budget.usable);
  console.log(
    `slow connections: ${slow} (asked ${opts.slow}; open-file limit ${budget.limit}), ` +
      `a header line each ${opts.lineEveryMs} ms; /health measured ${opts.seconds} s each`,
  );
  const baseline = await measure(opts.host, opts.port, opts.seconds);
  const held = holdSlow(opts.host, opts.port, slow, opts.lineEveryMs);
  try {
    const opening = performance.now();
    await held.start();
    const openedIn = (performance.now() - opening) / 1000;
    const loaded = await measure(opts.host, opts.port, opts.seconds);
    const { open, closedByNode } = held.stats();
    const show = (l: Latencies): string =>
      `p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms (${l.count} answers, ${l.failed} failed)`;
    console.log(`/health alone:                 ${show(baseline)}`);
    console.log(
      `/health under ${slow} slow:    ${show(loaded)}; ${open} slow open at the end, ` +
        `${closedByNode} closed by the node and opened again; opened in ${openedIn.toFixed(1)} s`,
    );
    console.log(`/health p99 ratio: ${(loaded.p99 / baseline.p99).toFixed(2)}`);
    return [
      row('limits', `/health p99 under ${slow} slow connections (vs none)`, loaded.p99, 'ms', baseline.p99),
      row('limits', `/health failures under ${slow} slow connections`, loaded.failed, 'count', null),
    ];
  } finally {
    held.stop();
  }
}
