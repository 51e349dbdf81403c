/**
 * The NATS connection of the JetStream engine: fails fast (with the url, never a secret) when the
 * server cannot be reached at start, then reconnects forever with a capped, jittered backoff so a
 * server restart only pauses the bus.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { EngineUnavailableError } from '../errors.js';
import { withoutUserinfo } from '../../schema/index.js';

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

/** The url (a comma list of servers) with any user/password part removed, safe for logs and errors. */
export function redactUrl(url: string): string {
  return withoutUserinfo(
    url
      .split(',')
      .map((one) => one.trim())
      .join(','),
  );
}

/** The connection and a gate that holds calls while the client is reconnecting. */
export interface NatsLink {
  readonly nc: NatsConnection;
  /**
   * Resolves at once when connected, else when the client reconnects; rejects with
   * EngineUnavailableError after `timeoutMs`. A request sent while disconnected is lost by the client
   * (its reply never arrives), so every call waits here first.
   */
  ready(timeoutMs: number): Promise<void>;
  /** True while the client holds a connection to a server (false from a disconnect to the reconnect). */
  linked(): boolean;
  /** Calls `listener` on every change of `linked()`; returns the unsubscribe. */
  onLinkChange(listener: (linked: boolean) => void): () => void;
}

export async function connectNats(opts: ConnectOptions): Promise<NatsLink> {
  const shown = redactUrl(opts.url);
  // The client asks for the delay on every turn of its dial loop, so it grows with the outage's age:
  // quick retries after a restart, at most one every 5 s in a long outage, jittered per client.
  let outageSince: number | null = null;
  let jitter = 1;
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: opts.url.split(',').map((s) => s.trim()),
      ...(opts.authToken ? { token: opts.authToken } : {}),
      name: opts.name ?? 'svc',
      timeout: opts.timeoutMs ?? 3_000,
      // The client otherwise builds an Error (a stack capture) per request and publish to say where a
      // failed one started; every failure here is translated with its own context instead.
      noAsyncTraces: true,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectDelayHandler: () => {
        if (outageSince === null) {
          outageSince = Date.now();
          jitter = 0.75 + Math.random() * 0.25;
        }
        const elapsed = Date.now() - outageSince;
        return Math.min(backoffCapMs, Math.max(backoffStepMs, elapsed / 2)) * jitter;
      },
      // A link that silently stops forwarding is declared lost after two unanswered pings (~10 s).
      pingInterval: 5_000,
      maxPingOut: 2,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new EngineUnavailableError(`cannot reach the NATS server at ${shown}: ${reason}`, { cause: error });
  }
  let connected = true;
  let waiters: Array<() => void> = [];
  const linkListeners = new Set<(linked: boolean) => void>();
  const setLinked = (next: boolean): void => {
    if (next === connected) return;
    connected = next;
    for (const listener of linkListeners) {
      try {
        listener(next);
      } catch (error) {
        opts.logger.error({ err: error }, 'bus: link listener failed');
      }
    }
  };
  void (async () => {
    for await (const status of nc.status()) {
      switch (status.type) {
        case 'disconnect':
          setLinked(false);
          opts.logger.warn({ url: shown }, 'bus: disconnected from the NATS server; reconnecting');
          break;
        case 'reconnect':
          outageSince = null;
          for (const wake of waiters) wake();
          waiters = [];
          setLinked(true);
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
  const ready = (timeoutMs: number): Promise<void> => {
    if (connected || nc.isClosed()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters = waiters.filter((w) => w !== wake);
        reject(new EngineUnavailableError(`the NATS server at ${shown} is unreachable (reconnecting)`));
      }, timeoutMs);
      waiters.push(wake);
    });
  };
  return {
    nc,
    ready,
    linked: () => connected && !nc.isClosed(),
    onLinkChange(listener) {
      linkListeners.add(listener);
      return () => linkListeners.delete(listener);
    },
  };
}
