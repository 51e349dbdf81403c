/**
 * Earlier versions queued each parsed delivery on a work-queue stream, `SVC_NOTIFY`, for a router consumer;
 * the integration actor now routes in place (integration.host.ts). A store that still holds that stream is
 * drained here: what it holds is routed as before (the `router` durable, same ids, so nothing is woken twice)
 * and the stream is deleted once empty. Deleting matters on JetStream, where the stream would otherwise keep
 * capturing the notifications now published as core messages. An older node still running in the fleet
 * fails to publish its notifications once the stream is gone and leaves the raw delivery unacknowledged, so
 * an upgraded node routes it: nothing is lost while a fleet upgrades.
 */
import type { Logger } from 'pino';
import { StreamNotFoundError, TerminateError, type Bus, type Subscription } from '../../bus/index.js';
import { InboundNotification } from '../../schema/index.js';
import type { Router } from './router.js';

export interface RetiredNotifyOptions {
  readonly bus: Bus;
  readonly router: Router;
  readonly logger: Logger;
  /** How often a draining node looks whether the stream is empty yet. */
  readonly checkEveryMs?: number;
}

export interface RetiredNotify extends Subscription {
  /** Resolves once the stream is gone (at once when there was none). */
  readonly retired: Promise<void>;
}

/** The retired stream and its router's durable, as earlier versions named them. */
export const RETIRED_NOTIFY_STREAM = 'SVC_NOTIFY';
const RETIRED_DURABLE = 'router';
const decoder = new TextDecoder();

async function messagesIn(bus: Bus): Promise<number | null> {
  try {
    return (await bus.streamInfo(RETIRED_NOTIFY_STREAM)).messages;
  } catch (error) {
    if (error instanceof StreamNotFoundError) return null;
    throw error;
  }
}

export async function drainRetiredNotify(opts: RetiredNotifyOptions): Promise<RetiredNotify> {
  const { bus, logger } = opts;
  const left = await messagesIn(bus);
  const nothing: RetiredNotify = { retired: Promise.resolve(), stop: () => Promise.resolve() };
  if (left === null) return nothing;
  if (left === 0) {
    await bus.deleteStream(RETIRED_NOTIFY_STREAM);
    logger.info({ event: 'notify_stream_retired', drained: 0 }, 'notify_stream_retired');
    return nothing;
  }
  logger.info({ event: 'notify_stream_draining', messages: left }, 'notify_stream_draining');
  let drained = 0;
  const sub = await bus.consume(RETIRED_NOTIFY_STREAM, { durable: RETIRED_DURABLE }, async (msg) => {
    let n: InboundNotification;
    try {
      n = InboundNotification.parse(JSON.parse(decoder.decode(msg.data)));
    } catch (error) {
      logger.error({ event: 'notification_unreadable', seq: msg.seq, err: error }, 'notification_unreadable');
      throw new TerminateError('unreadable notification', { cause: error });
    }
    await opts.router.route(n);
    drained += 1;
  });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const retired = new Promise<void>((resolve) => {
    // Acks land after the handler returns, so emptiness is read from the stream, not counted here.
    const check = async (): Promise<void> => {
      if (stopped) return;
      try {
        const now = await messagesIn(bus);
        if (now === 0 || now === null) {
          stopped = true;
          await sub.stop();
          if (now === 0) await bus.deleteStream(RETIRED_NOTIFY_STREAM);
          logger.info({ event: 'notify_stream_retired', drained }, 'notify_stream_retired');
          return resolve();
        }
      } catch (error) {
        logger.warn({ event: 'notify_stream_check_failed', err: error }, 'notify_stream_check_failed');
      }
      timer = setTimeout(() => void check(), opts.checkEveryMs ?? 1_000);
    };
    void check();
  });
  return {
    retired,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      await sub.stop();
    },
  };
}
