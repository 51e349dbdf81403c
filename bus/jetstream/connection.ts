/**
 * The NATS connection of the JetStream engine: fails fast (with the url, never a secret) when the
 * server cannot be reached at start, then reconnects forever with a capped, jittered backoff so a
 * server restart only pauses the bus.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { EngineUnavailableError } from '../errors.js';

export interface ConnectOptions {
  readonly url: string;
  readonly authToken?: string;
  readonly name?: string;
  readonly logger: Logger;
  /** Handshake deadline for the first connection. Default 3 s. */
  readonly timeoutMs?: number;
}

const backoffStepMs = 250;
const backoffCapMs = 5_000;

/** The url with any user/password part removed, safe for logs and error messages. */
export function redactUrl(url: string): string {
  return url
    .split(',')
    .map((one) => one.trim().replace(/\/\/[^@/]*@/, '//'))
    .join(',');
}

export async function connectNats(opts: ConnectOptions): Promise<NatsConnection> {
  const shown = redactUrl(opts.url);
  let attempts = 0;
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: opts.url.split(',').map((s) => s.trim()),
      ...(opts.authToken ? { token: opts.authToken } : {}),
      name: opts.name ?? 'svc',
      timeout: opts.timeoutMs ?? 3_000,
      reconnect: true,
      maxReconnectAttempts: -1,
      // Exponential from 250 ms, capped at 5 s, with jitter so a fleet does not reconnect in step.
      reconnectDelayHandler: () => {
        attempts += 1;
        const base = Math.min(backoffCapMs, backoffStepMs * 2 ** Math.min(attempts, 5));
        return base / 2 + Math.random() * (base / 2);
      },
      pingInterval: 10_000,
      maxPingOut: 3,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new EngineUnavailableError(`cannot reach the NATS server at ${shown}: ${reason}`, { cause: error });
  }
  void (async () => {
    for await (const status of nc.status()) {
      switch (status.type) {
        case 'disconnect':
          opts.logger.warn({ url: shown }, 'bus: disconnected from the NATS server; reconnecting');
          break;
        case 'reconnect':
          attempts = 0;
          opts.logger.info({ url: shown }, 'bus: reconnected to the NATS server');
          break;
        case 'error':
          opts.logger.error({ err: status.error }, 'bus: NATS connection error');
          break;
        default:
          break;
      }
    }
  })().catch(() => undefined);
  return nc;
}
