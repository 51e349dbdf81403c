/**
 * The baseline of `scripts/bench/bus.ts`: raw `@nats-io/jetstream` publish throughput, with the same
 * windowed concurrency the bus benchmark uses. Run as its own process by the benchmark (so NATS code
 * stays inside bus/); prints one JSON line `{ "perSecond": n }`.
 *
 *   node --import=tsx bus/bench/jetstream-raw.ts '{"url":"nats://127.0.0.1:4222","stream":"RAW",
 *     "subject":"raw.x","messages":50000,"window":256,"size":128}'
 */
import { argv } from 'node:process';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { z } from 'zod';

export const RawBenchOptions = z.object({
  url: z.string().min(1),
  stream: z.string().min(1),
  subject: z.string().min(1),
  messages: z.number().int().positive(),
  window: z.number().int().positive(),
  size: z.number().int().nonnegative(),
});
export type RawBenchOptions = z.infer<typeof RawBenchOptions>;

/** Publishes `messages` acked messages keeping `window` in flight; resolves with messages per second. */
export async function rawPublishPerSecond(opts: RawBenchOptions): Promise<number> {
  const nc = await connect({ servers: opts.url });
  try {
    const jsm = await jetstreamManager(nc);
    const js = jsm.jetstream();
    const payload = new Uint8Array(opts.size);
    let next = 0;
    const started = process.hrtime.bigint();
    const lane = async () => {
      while (next < opts.messages) {
        next += 1;
        await js.publish(opts.subject, payload);
      }
    };
    await Promise.all(Array.from({ length: opts.window }, lane));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return opts.messages / seconds;
  } finally {
    await nc.drain();
  }
}

if (argv[1] === fileURLToPath(import.meta.url)) {
  const opts = RawBenchOptions.parse(JSON.parse(argv[2] ?? '{}'));
  rawPublishPerSecond(opts).then(
    (perSecond) => console.log(JSON.stringify({ perSecond })),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
