/** What the parts of the JetStream engine share: the connection, the JetStream contexts, settings. */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { Subscription } from '../bus.js';
import { LinkDroppedError } from './translate.js';

export interface EngineHost {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  /** Replicas of every stream and bucket this engine creates. */
  readonly replicas: number;
  readonly logger: Logger;
  /** Throws BusClosedError once the bus is closed. */
  assertOpen(): void;
  /** Waits (bounded) while the client reconnects; call before sending a request or publish. */
  ready(): Promise<void>;
  /** True while the client is connected to a server. */
  linked(): boolean;
  /** Calls `listener` on every change of `linked()`; returns the unsubscribe. */
  onLinkChange(listener: (linked: boolean) => void): () => void;
  /** Remembers a live subscription so `close()` stops it; returns it unchanged. */
  track(sub: Subscription): Subscription;
}

/** Wraps `stop` so it runs once and forgets itself from the host's live set. */
export function once(stop: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= stop());
}

/**
 * `request`, or LinkDroppedError as soon as the link to the server drops while it is in flight: the server
 * it went to may be gone, and its answer with it.
 */
export async function untilLinkDrops<T>(host: EngineHost, request: Promise<T>): Promise<T> {
  let stopWatching = (): void => undefined;
  const dropped = new Promise<never>((_, reject) => {
    stopWatching = host.onLinkChange((linked) => {
      if (!linked) reject(new LinkDroppedError('the link to the NATS server dropped before the answer came'));
    });
  });
  try {
    return await Promise.race([request, dropped]);
  } finally {
    stopWatching();
  }
}
