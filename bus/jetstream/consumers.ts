/**
 * Durable consumers on JetStream: explicit-ack pull consumers whose position lives in the server. The
 * handler gets one message at a time in delivery order; returning acks, RedeliverError naks with its
 * delay, TerminateError terms, any other error leaves the message for redelivery after `ackWaitMs`.
 * While the handler runs, the message is marked in progress every third of the ack wait, so the ack
 * wait bounds how long a dead or cut-off consumer keeps a message, not how long a handler may take.
 * When the server behind the consumer is lost (its leader moved), pulling starts again within seconds.
 */
import {
  AckPolicy,
  DeliverPolicy,
  type Consumer,
  type ConsumerConfig,
  type ConsumerInfo,
  type ConsumerMessages,
  type JetStreamClient,
  type JsMsg,
} from '@nats-io/jetstream';
import type { ConsumeHandler, ConsumerSpec, Subscription } from '../bus.js';
import { BusError, RedeliverError, TerminateError } from '../errors.js';
import { assertName, assertSubject } from '../subject-match.js';
import { deliveredFromJs, nanos } from './codec.js';
import { once, type EngineHost } from './host.js';
import { fromServer, heartbeatMs, Liveness } from './liveness.js';
import { recover } from './recovery.js';
import { apiCode, ApiCode, translate } from './translate.js';

const defaultAckWaitMs = 30_000;
/** Messages pulled ahead of the handler; small, so a stop leaves little to hand back. */
const pullBatch = 64;
/** Pull requests expire and are renewed this often (the server's heartbeats ride on them). */
const pullExpiresMs = 10_000;

export function consumerConfig(spec: ConsumerSpec): Partial<ConsumerConfig> {
  return {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(spec.ackWaitMs ?? defaultAckWaitMs),
    max_deliver: spec.maxDeliver && spec.maxDeliver > 0 ? spec.maxDeliver : -1,
    deliver_policy: spec.deliverPolicy === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
    max_ack_pending:
      spec.maxInFlight !== undefined && spec.maxInFlight > 0 ? Math.floor(spec.maxInFlight) : 1_000,
    ...(spec.filterSubject !== undefined ? { filter_subject: spec.filterSubject } : {}),
  };
}

export class ConsumerOps {
  private readonly active = new Set<string>();

  constructor(private readonly host: EngineHost) {}

  /** Waiting plus handed out and not acknowledged, as the server counts them; null for no such consumer. */
  async pending(stream: string, durable: string): Promise<number | null> {
    const info = await this.info(stream, durable);
    return info === null ? null : info.num_pending + info.num_ack_pending;
  }

  /** The ack floor in stream sequences (Bus.consumerAckFloor); null for no such consumer. */
  async ackFloor(stream: string, durable: string): Promise<number | null> {
    const info = await this.info(stream, durable);
    if (info === null) return null;
    // nats-server 2.9 reports 0 until the first acknowledgement, a durable made with DeliverNew on a
    // stream with messages included; with nothing handed out unacknowledged, all it passed is done.
    const passed = info.num_ack_pending === 0 ? info.delivered.stream_seq : 0;
    return Math.max(info.ack_floor.stream_seq, passed);
  }

  private async info(stream: string, durable: string): Promise<ConsumerInfo | null> {
    this.host.assertOpen();
    assertName('stream', stream);
    assertName('durable', durable);
    await this.host.ready();
    try {
      return await this.host.jsm.consumers.info(stream, durable);
    } catch (error) {
      const code = apiCode(error);
      if (code === ApiCode.ConsumerNotFound || code === ApiCode.StreamNotFound) return null;
      throw translate(error, `consumer ${durable} on ${stream}`);
    }
  }

  async consume(stream: string, spec: ConsumerSpec, handler: ConsumeHandler): Promise<Subscription> {
    this.host.assertOpen();
    assertName('stream', stream);
    assertName('durable', spec.durable);
    if (spec.filterSubject !== undefined) assertSubject(spec.filterSubject, true);
    const key = `${stream}/${spec.durable}`;
    if (this.active.has(key)) {
      throw new BusError(
        `durable consumer ${spec.durable} on ${stream} is already consuming in this process`,
      );
    }
    this.active.add(key);
    try {
      return await this.start(stream, spec, handler, key);
    } catch (error) {
      this.active.delete(key);
      throw error;
    }
  }

  private async ensure(stream: string, spec: ConsumerSpec): Promise<void> {
    const config = consumerConfig(spec);
    await this.host.ready();
    try {
      await this.host.jsm.consumers.add(stream, config);
    } catch (error) {
      if (apiCode(error) === ApiCode.StreamNotFound) throw translate(error, `consumer ${spec.durable}`);
      // It exists with other settings: update what may change (the position is kept).
      try {
        await this.host.jsm.consumers.update(stream, spec.durable, {
          ack_wait: config.ack_wait,
          max_deliver: config.max_deliver,
          ...(config.max_ack_pending !== undefined ? { max_ack_pending: config.max_ack_pending } : {}),
          ...(config.filter_subject !== undefined ? { filter_subject: config.filter_subject } : {}),
        });
      } catch {
        throw translate(error, `consumer ${spec.durable} on ${stream}`);
      }
    }
  }

  private async start(
    stream: string,
    spec: ConsumerSpec,
    handler: ConsumeHandler,
    key: string,
  ): Promise<Subscription> {
    await this.ensure(stream, spec);
    const log = this.host.logger.child({ stream, durable: spec.durable });
    const stopped = new AbortController();
    let messages: ConsumerMessages = await this.pull(stream, spec.durable, this.host.js).catch(
      (error: unknown) => {
        throw translate(error, `consumer ${spec.durable} on ${stream}`);
      },
    );
    const liveness = new Liveness(this.host);
    const watch = (current: ConsumerMessages): void => {
      liveness.opened();
      void (async () => {
        for await (const status of current.status()) {
          liveness.heard(fromServer(status));
          if (status.type === 'heartbeats_missed') void current.close();
        }
      })().catch(() => undefined);
    };
    watch(messages);
    // The consumer's leader may move (its server died): a pull left on the old one is never answered and
    // no error says so, only silence. Silence past three heartbeats while connected (two for new pulls,
    // liveness.ts) ends this round of pulls; the loop below then pulls again from the consumer's new leader.
    const watchdog = setInterval(() => {
      if (liveness.lost() !== null) void messages.close();
    }, heartbeatMs / 2);
    watchdog.unref();
    const limit = Math.max(1, Math.floor(spec.concurrency ?? 1));
    const inFlight = new Set<Promise<void>>();
    const loop = (async () => {
      for (;;) {
        try {
          for await (const msg of messages) {
            liveness.heard(true);
            // Pulled but not handled: hand it back at once rather than after the ack wait.
            if (stopped.signal.aborted) msg.nak();
            else if (limit === 1) await this.handle(stream, spec, msg, handler);
            else {
              const call: Promise<void> = this.handle(stream, spec, msg, handler).finally(() =>
                inFlight.delete(call),
              );
              inFlight.add(call);
              if (inFlight.size >= limit) await Promise.race(inFlight);
            }
          }
        } catch (error) {
          if (!stopped.signal.aborted) log.warn({ err: error }, 'bus: consumer pull failed');
        }
        await Promise.all(inFlight);
        if (stopped.signal.aborted || this.host.nc.isClosed()) return;
        log.warn('bus: consumer lost its server; pulling again');
        const again = await this.repull(stream, spec.durable, stopped.signal);
        if (!again) return;
        if (stopped.signal.aborted) {
          await again.close();
          return;
        }
        messages = again;
        watch(messages);
        log.info('bus: consumer resumed');
      }
    })().catch((error: unknown) => log.error({ err: error }, 'bus: consumer stopped'));
    const stop = once(async () => {
      stopped.abort();
      clearInterval(watchdog);
      liveness.close();
      await messages.close();
      await loop;
      this.active.delete(key);
    });
    return this.host.track({ stop });
  }

  /** Looks the durable up and starts pulling from it. */
  private async pull(stream: string, durable: string, client: JetStreamClient): Promise<ConsumerMessages> {
    await this.host.ready();
    return pullFrom(await client.consumers.get(stream, durable));
  }

  /**
   * Pulls again once the consumer answers; null once stopped. Only the lookup is hedged (the old leader
   * may never reply to it): pulls are started on the winner alone, since messages pulled by a loser would
   * sit unacknowledged until their ack wait ran out.
   */
  private async repull(
    stream: string,
    durable: string,
    signal: AbortSignal,
  ): Promise<ConsumerMessages | null> {
    const consumer = await recover(this.host, (client) => client.consumers.get(stream, durable), {
      signal,
      discard: () => undefined,
      notYet: (error, attempt) =>
        this.host.logger.warn({ err: error, stream, durable, attempt }, 'bus: consumer not resumed yet'),
    });
    return consumer === null ? null : pullFrom(consumer);
  }

  private async handle(
    stream: string,
    spec: ConsumerSpec,
    msg: JsMsg,
    handler: ConsumeHandler,
  ): Promise<void> {
    const durable = spec.durable;
    const ackWaitMs = spec.ackWaitMs ?? defaultAckWaitMs;
    const progress = setInterval(() => msg.working(), Math.max(100, Math.floor(ackWaitMs / 3)));
    progress.unref();
    try {
      await handler(deliveredFromJs(stream, msg));
      clearInterval(progress);
      msg.ack();
    } catch (error) {
      if (error instanceof TerminateError) {
        msg.term(error.message);
      } else if (error instanceof RedeliverError) {
        msg.nak(error.delayMs > 0 ? error.delayMs : undefined);
      } else {
        // Left unacknowledged: the server redelivers it after the ack wait.
        this.host.logger.warn(
          { err: error, stream, durable, seq: msg.seq },
          'bus: handler failed; will redeliver',
        );
      }
    } finally {
      clearInterval(progress);
    }
  }
}

/** Starts pulling from a durable (its position is the server's), heartbeats every second. */
function pullFrom(consumer: Consumer): Promise<ConsumerMessages> {
  return consumer.consume({ max_messages: pullBatch, idle_heartbeat: heartbeatMs, expires: pullExpiresMs });
}
