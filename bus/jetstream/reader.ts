/**
 * Bounded and unbounded ordered reads of a stream through JetStream ordered consumers (ephemeral,
 * in memory, no acks; the client recreates them at the right position after a reconnect).
 */
import { DeliverPolicy, type Consumer, type JsMsg, type OrderedConsumerOptions } from '@nats-io/jetstream';
import type { EngineHost } from './host.js';
import { translate } from './translate.js';

export interface OrderedReadOptions {
  /** Subject filter (wildcards allowed); default every subject. */
  readonly filter?: string;
  /** First sequence to deliver (inclusive). */
  readonly fromSeq?: number;
  /** Start at the first message stored at or after this instant. */
  readonly since?: Date;
  /** Deliver only the newest message of each subject. */
  readonly lastPerSubject?: boolean;
}

/** Creates the ordered consumer for `opts` (one API round trip). */
export async function orderedConsumer(
  host: EngineHost,
  stream: string,
  opts: OrderedReadOptions,
): Promise<Consumer> {
  const config: Partial<OrderedConsumerOptions> = { filter_subjects: opts.filter ?? '>' };
  if (opts.lastPerSubject) config.deliver_policy = DeliverPolicy.LastPerSubject;
  else if (opts.since) config.opt_start_time = opts.since.toISOString();
  else config.opt_start_seq = Math.max(1, opts.fromSeq ?? 1);
  await host.ready();
  try {
    return await host.js.consumers.get(stream, config);
  } catch (error) {
    throw translate(error, `read of stream ${stream}`);
  }
}

/**
 * Yields the stream's messages from the start position through `toSeq` (inclusive), in order, then
 * ends; ends at once when nothing matches. Ends early when the caller stops iterating.
 */
export async function* boundedRead(
  host: EngineHost,
  stream: string,
  opts: OrderedReadOptions & { readonly toSeq: number },
): AsyncGenerator<JsMsg> {
  const consumer = await orderedConsumer(host, stream, opts);
  const fromSeq = opts.fromSeq ?? 1;
  try {
    const info = await consumer.info(true);
    if (info.num_pending === 0) return;
    const messages = await consumer.consume({ max_messages: 1_024 });
    try {
      for await (const msg of messages) {
        if (msg.seq > opts.toSeq) break;
        if (msg.seq >= fromSeq) yield msg;
        // `pending` counts matching messages stored after this one: zero means the end for now.
        if (msg.seq >= opts.toSeq || msg.info.pending === 0) break;
      }
    } finally {
      await messages.close();
    }
  } catch (error) {
    throw translate(error, `read of stream ${stream}`);
  } finally {
    consumer.delete().catch(() => undefined);
  }
}
