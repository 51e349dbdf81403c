/**
 * The processes `scripts/bench/dashboard.ts` forks so that it measures the node, not its own event loop:
 *  - `clients`: opens `count` sockets to a stream URL and records, for every `event` frame the benchmark
 *    published, the delay from publish to receipt (the publish instant is in the summary);
 *  - `bare`: the baseline, a bare fan-out on the HTTP transport alone (http/bench/bare-fanout.ts) of the same events,
 *    taken from the bus by a core subscription, to every socket connected to it.
 * Each talks to the benchmark over the fork's IPC channel (messages below). Not meant to be run by hand.
 */
import { startBareFanout } from '../../http/bench/bare-fanout.js';
import { openBus, Subjects } from '../../bus/index.js';
import { openWs, type WsClient } from '../ws-client.js';

/** What the benchmark sends a forked process. */
export type ToChild =
  | { readonly kind: 'open'; readonly url: string; readonly count: number }
  | { readonly kind: 'report' }
  | { readonly kind: 'close' }
  | { readonly kind: 'serve'; readonly natsUrl: string }
  | { readonly kind: 'stop' };

/** What a forked process answers. */
export type FromChild =
  | { readonly kind: 'opened' }
  | { readonly kind: 'closed' }
  | { readonly kind: 'delays'; readonly delays: number[] }
  | { readonly kind: 'serving'; readonly port: number }
  | { readonly kind: 'failed'; readonly error: string };

/** A publish instant comparable across processes on one machine (ms since the epoch, sub-ms). */
export const nowMs = (): number => performance.timeOrigin + performance.now();

/** The summary a published event carries: its number and publish instant. */
export const fanoutSummary = (i: number): string => `fanout ${i} at ${nowMs().toFixed(2)}`;
const summaryPattern = /"summary":"fanout \d+ at ([\d.]+)"/;

function send(message: FromChild): void {
  process.send?.(message);
}

function clients(): void {
  const sockets: WsClient[] = [];
  const delays: number[] = [];
  const onText = (text: string): void => {
    if (!text.startsWith('{"kind":"event"')) return;
    const match = summaryPattern.exec(text);
    if (match) delays.push(nowMs() - Number(match[1]));
  };
  process.on('message', (message: ToChild) => {
    if (message.kind === 'open') {
      void (async () => {
        for (let c = 0; c < message.count; c++) sockets.push(await openWs(message.url, onText));
        send({ kind: 'opened' });
      })().catch((error: unknown) => send({ kind: 'failed', error: String(error) }));
    } else if (message.kind === 'report') {
      send({ kind: 'delays', delays: delays.splice(0) });
    } else if (message.kind === 'close') {
      const closing = sockets.splice(0);
      for (const socket of closing) socket.close();
      void Promise.all(closing.map((socket) => socket.closed)).then(() => send({ kind: 'closed' }));
    } else if (message.kind === 'stop') {
      for (const socket of sockets) socket.close();
      process.disconnect();
    }
  });
}

function bare(): void {
  let stop = (): Promise<void> => Promise.resolve();
  process.on('message', (message: ToChild) => {
    if (message.kind === 'serve') {
      void (async () => {
        const bus = await openBus({ type: 'jetstream', url: message.natsUrl });
        const server = await startBareFanout('127.0.0.1', 0);
        const decoder = new TextDecoder();
        const subscription = bus.subscribe(Subjects.events, (msg) =>
          server.broadcast(`{"kind":"event","data":${decoder.decode(msg.data)}}`),
        );
        stop = async () => {
          await subscription.stop();
          server.close();
          await bus.close();
        };
        send({ kind: 'serving', port: server.port });
      })().catch((error: unknown) => send({ kind: 'failed', error: String(error) }));
    } else if (message.kind === 'stop') {
      void stop().finally(() => process.disconnect());
    }
  });
}

if (process.send !== undefined) {
  if (process.env['BENCH_ROLE'] === 'clients') clients();
  else if (process.env['BENCH_ROLE'] === 'bare') bare();
}
