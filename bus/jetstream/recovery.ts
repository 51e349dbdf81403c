/**
 * How a follow or a durable consumer gets its consumer back after the server behind it died: quick API
 * attempts (a request the dead server never answers is given up after `attemptTimeoutMs`), hedged
 * (hedge.ts) so that a lost one does not hold the next back.
 */
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { hedged } from './hedge.js';
import type { EngineHost } from './host.js';

const spacingMs = 400;
const attemptTimeoutMs = 2_500;

export interface RecoveryOptions<T> {
  /** Ends the recovery: it resolves null, and whatever an attempt produces later is discarded. */
  readonly signal: AbortSignal;
  /** Receives what an attempt produced after another had already won. */
  discard(late: T): void;
  /** Told of the first failed attempt and of every 20th, for the log. */
  notYet(error: unknown, attempt: number): void;
}

/** Runs `attempt` with a quick client until one succeeds; null once `signal` aborts. */
export function recover<T>(
  host: EngineHost,
  attempt: (client: JetStreamClient) => Promise<T>,
  opts: RecoveryOptions<T>,
): Promise<T | null> {
  const client = jetstream(host.nc, { timeout: attemptTimeoutMs });
  return hedged(
    async () => {
      await host.ready();
      return attempt(client);
    },
    {
      spacingMs,
      maxPending: Math.ceil(attemptTimeoutMs / spacingMs),
      signal: opts.signal,
      discard: (late) => opts.discard(late),
      onFailure: (error, n) => {
        if (n === 1 || n % 20 === 0) opts.notYet(error, n);
      },
    },
  );
}
