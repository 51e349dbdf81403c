/**
 * Bounded and unbounded ordered reads of a stream through JetStream ordered consumers (ephemeral,
 * in memory, no acks). An unbounded read is supervised (`followOrdered`): its consumer lives on one
 * server (the stream leader's), and when that server dies nothing tells the client — its messages and
 * heartbeats just stop. So the server heartbeats every second, and a read silent for three heartbeats
 * while the client is connected (or a new one silent for two, liveness.ts) is recreated from the sequence
 * after the last one delivered.
 *
 * A purge with a subject filter moves every consumer behind it to the first message left on that subject
 * (nats-server 2.9; 2.10 moves only consumers inside the filter), past messages it never removed: a read
 * lagging behind another node's compaction would skip records that are still stored. A read with
 * `verifyGaps` looks, at each gap in the sequences it is given, whether a message it should have had is
 * still stored before the one it got, and if so goes on with a new consumer from there.
 */
import {
  DeliverPolicy,
  type Consumer,
  type ConsumerMessages,
  type JetStreamClient,
  type JsMsg,
  type OrderedConsumerOptions,
} from '@nats-io/jetstream';
import type { EngineHost } from './host.js';
import { fromServer, heartbeatMs, Liveness } from './liveness.js';
import { CHECK_BATCH, checkBatch, gapChecker, nextStored } from './reader.gaps.js';
import { recover } from './recovery.js';
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
  /** Verify each gap in the sequences delivered (a stream that takes subject-filtered purges). */
  readonly verifyGaps?: boolean;
}

/** Pull requests expire and are renewed this often (the server's heartbeats ride on them). */
const pullExpiresMs = 10_000;

/** Creates the ordered consumer for `opts` (one API round trip). */
export async function orderedConsumer(
  host: EngineHost,
  stream: string,
  opts: OrderedReadOptions,
  client: JetStreamClient = host.js,
): Promise<Consumer> {
  const config: Partial<OrderedConsumerOptions> = { filter_subjects: opts.filter ?? '>' };
  if (opts.lastPerSubject) config.deliver_policy = DeliverPolicy.LastPerSubject;
  else if (opts.since) config.opt_start_time = opts.since.toISOString();
  else config.opt_start_seq = Math.max(1, opts.fromSeq ?? 1);
  await host.ready();
  try {
    return await client.consumers.get(stream, config);
  } catch (error) {
    throw translate(error, `read of stream ${stream}`);
  }
}

/**
 * A bounded read silent this long (not counting time its caller holds a message) looks whether the
 * messages it waits for are still stored. A healthy consumer on loopback or a LAN delivers well within it;
 * one moved past them by a purge delivers nothing more, and the read should not wait long to see it.
 */
const STALL_MS = 500;

/**
 * Yields the stream's messages from the start position through `toSeq` (inclusive), in order, then
 * ends; ends at once when nothing matches. Ends early when the caller stops iterating. A read that falls
 * silent (a purge while it reads was seen to leave its consumer waiting past the messages that remain)
 * ends when nothing it waits for is still stored, or goes on with a new consumer from the next one.
 */
export async function* boundedRead(
  host: EngineHost,
  stream: string,
  opts: OrderedReadOptions & { readonly toSeq: number },
): AsyncGenerator<JsMsg> {
  const fromSeq = opts.fromSeq ?? 1;
  const filter = opts.filter ?? '>';
  let read: OrderedReadOptions = opts;
  let last = fromSeq - 1;
  /** Where a new consumer goes on from, when this one passed over a message still stored. */
  let resumeAt: number | null = null;
  let delivered = false;
  const gapCheck = gapChecker(host, stream, opts);
  for (;;) {
    const consumer = await orderedConsumer(host, stream, read);
    let silent = false;
    resumeAt = null;
    try {
      const info = await consumer.info(true);
      if (info.num_pending === 0) return;
      const messages = await consumer.consume({ max_messages: 1_024 });
      let heard = Date.now();
      /** While the caller holds a message the consumer is not silent: it waits for the caller. */
      let holding = false;
      const watch = setInterval(() => {
        if (holding || Date.now() - heard < STALL_MS) return;
        silent = true;
        void messages.close();
      }, STALL_MS / 2).unref();
      /** Messages received whose gaps are checked together before they are yielded. */
      const batch: JsMsg[] = [];
      /** Yields what of `batch` the check let through; true when the read goes on with this consumer. */
      const checked = async function* (beyond: number | null): AsyncGenerator<JsMsg, boolean> {
        const after = delivered || opts.since === undefined ? last : null;
        const { take, missed } = await checkBatch(gapCheck, after, batch, beyond);
        for (const msg of batch.splice(0).slice(0, take)) {
          if (msg.seq >= fromSeq) {
            holding = true;
            try {
              yield msg;
            } finally {
              holding = false;
              heard = Date.now();
            }
          }
          last = Math.max(last, msg.seq);
          delivered = true;
        }
        heard = Date.now();
        resumeAt = missed;
        return missed === null;
      };
      try {
        for await (const msg of messages) {
          heard = Date.now();
          const beyond = msg.seq > opts.toSeq;
          if (!beyond) batch.push(msg);
          // `pending` counts matching messages stored after this one: zero means the end for now.
          const end = beyond || msg.seq >= opts.toSeq || msg.info.pending === 0;
          if (!end && batch.length < CHECK_BATCH) continue;
          if (!(yield* checked(beyond ? opts.toSeq + 1 : null)) || end) break;
        }
        // Cut short by silence: what came before it is still read.
        if (batch.length > 0 && resumeAt === null) yield* checked(null);
      } finally {
        clearInterval(watch);
        await messages.close();
      }
    } catch (error) {
      throw translate(error, `read of stream ${stream}`);
    } finally {
      consumer.delete().catch(() => undefined);
    }
    if (resumeAt !== null) {
      read = { ...(opts.filter !== undefined ? { filter: opts.filter } : {}), fromSeq: resumeAt };
      continue;
    }
    if (!silent || opts.lastPerSubject) return;
    const next = await nextStored(host, stream, filter, last + 1);
    if (next === null || next > opts.toSeq) return;
    // Before its first message a read from an instant starts over as it began (its sequence is unknown).
    if (last >= fromSeq || opts.since === undefined)
      read = { ...(opts.filter !== undefined ? { filter: opts.filter } : {}), fromSeq: next };
  }
}

/** A consumer of a follow with its pulls; `ticket` tells its messages from those of one given up. */
interface Opened {
  readonly consumer: Consumer;
  readonly messages: ConsumerMessages;
  readonly ticket: object;
}

/** Statuses that say the consumer (or its stream's server) is gone: recreate it at once. */
const lostStatuses = new Set([
  'heartbeats_missed',
  'consumer_not_found',
  'consumer_deleted',
  'no_responders',
]);

/**
 * An unbounded, ordered, gap-free read: `onMessage` sees each matching message once, in stream order,
 * from the start position on, across reconnects and the loss of the server holding the consumer. The
 * first consumer is created before this resolves (so a missing stream fails here); a lost one is
 * recreated after the last sequence delivered, retried until it succeeds or the read is stopped.
 */
export async function followOrdered(
  host: EngineHost,
  stream: string,
  opts: OrderedReadOptions,
  onMessage: (msg: JsMsg) => void,
): Promise<{ stop(): Promise<void> }> {
  const log = host.logger.child({ stream, filter: opts.filter ?? '>' });
  /** The last stream sequence delivered; 0 before the first. */
  let last = 0;
  const stopping = new AbortController();
  let current: Opened | null = null;
  let recovering: Promise<void> | null = null;
  const liveness = new Liveness(host);
  const gapCheck = gapChecker(host, stream, opts);
  /** A consumer's messages from a gap being verified on, held back in order until it is. */
  let holding: { readonly ticket: object; readonly msgs: JsMsg[] } | null = null;
  /** Checked: no stored message up to here was passed over (above `last`, a gap verified). */
  let verifiedTo = 0;

  const position = (): OrderedReadOptions =>
    last > 0 ? { ...(opts.filter !== undefined ? { filter: opts.filter } : {}), fromSeq: last + 1 } : opts;

  /** Creates a consumer and starts its pulls; only the one made `current` has its messages taken. */
  const open = async (client: JetStreamClient): Promise<Opened> => {
    const consumer = await orderedConsumer(host, stream, position(), client);
    const ticket = {};
    const messages = await consumer.consume({
      max_messages: 512,
      idle_heartbeat: heartbeatMs,
      expires: pullExpiresMs,
      callback: (msg) => {
        if (current?.ticket !== ticket) return;
        liveness.heard(true);
        if (holding?.ticket === ticket) holding.msgs.push(msg);
        else take(msg, ticket);
      },
    });
    return { consumer, messages, ticket };
  };

  const deliver = (msg: JsMsg): void => {
    last = msg.seq;
    try {
      onMessage(msg);
    } catch (error) {
      log.error({ err: error, seq: msg.seq }, 'bus: follower failed');
    }
  };

  const take = (msg: JsMsg, ticket: object): void => {
    // A consumer recreated by the client itself may start before the last one delivered.
    if (msg.seq <= last || (opts.fromSeq !== undefined && msg.seq < opts.fromSeq)) return;
    const after = knownPast();
    if (!opts.verifyGaps || after === null || msg.seq <= after + 1) return deliver(msg);
    holding = { ticket, msgs: [msg] };
    void verify(after, msg.seq, holding);
  };

  /** The sequence the read is known to have everything through, or null (from an instant, before a message). */
  const knownPast = (): number | null => {
    const base = last > 0 ? last : opts.since === undefined ? (opts.fromSeq ?? 1) - 1 : null;
    return base === null ? null : Math.max(base, verifiedTo);
  };

  /**
   * An idle heartbeat names the last sequence the consumer passed: beyond what was delivered, it is a gap
   * with no message after it (a purge that left nothing on its subject moves the consumer to the stream's end).
   */
  const quiet = (passed: number, ticket: object): void => {
    const after = knownPast();
    if (!opts.verifyGaps || holding?.ticket === ticket || after === null || passed <= after) return;
    holding = { ticket, msgs: [] };
    void verify(after, passed + 1, holding);
  };

  /** Goes on with the held messages once the gap below `seq` is known to hide nothing stored. */
  const verify = async (after: number, seq: number, hold: NonNullable<typeof holding>): Promise<void> => {
    let missed: number | null;
    try {
      missed = await gapCheck(after, seq);
    } catch (error) {
      log.warn({ err: error, after_seq: after }, 'bus: could not verify a gap in an ordered read');
      missed = after + 1;
    }
    if (holding === hold) holding = null;
    if (current?.ticket !== hold.ticket) return;
    if (missed !== null) return lose(`passed over stored message ${missed}`);
    verifiedTo = Math.max(verifiedTo, seq - 1);
    for (const msg of hold.msgs) {
      if (holding?.ticket === hold.ticket) holding.msgs.push(msg);
      else take(msg, hold.ticket);
    }
  };

  // Not awaited: closing a consumer whose server died can hang as long as the client's own retries.
  const discard = (was: Opened): void => {
    void was.messages.close().catch(() => undefined);
    was.consumer.delete().catch(() => undefined);
  };

  const adopt = (opened: Opened): void => {
    current = opened;
    liveness.opened();
    void (async () => {
      for await (const status of opened.messages.status()) {
        liveness.heard(fromServer(status));
        if (status.type === 'heartbeat' && current === opened)
          quiet(status.lastStreamSequence, opened.ticket);
        if (lostStatuses.has(status.type) && current === opened) lose(status.type);
      }
    })().catch(() => undefined);
  };

  const lose = (why: string): void => {
    if (stopping.signal.aborted || recovering) return;
    const was = current;
    current = null;
    log.warn({ why, last_seq: last }, 'bus: ordered read lost its consumer; recreating it');
    recovering = (async () => {
      if (was) discard(was);
      const opened = await recover(host, open, {
        signal: stopping.signal,
        discard,
        notYet: (error, attempt) => log.warn({ err: error, attempt }, 'bus: ordered read not resumed yet'),
      });
      if (!opened) return;
      adopt(opened);
      log.info({ after_seq: last }, 'bus: ordered read resumed');
    })().finally(() => {
      recovering = null;
    });
  };

  const first = await open(host.js).catch((error: unknown) => {
    throw translate(error, `follow of stream ${stream}`);
  });
  adopt(first);
  // Silence while disconnected is the link's business (the client resumes the read on reconnect).
  const watchdog = setInterval(() => {
    if (recovering) return;
    const why = liveness.lost();
    if (why !== null) lose(why);
  }, heartbeatMs / 2);
  watchdog.unref();
  return {
    async stop() {
      stopping.abort();
      clearInterval(watchdog);
      liveness.close();
      await recovering;
      const was = current;
      current = null;
      if (was) {
        await was.messages.close().catch(() => undefined);
        was.consumer.delete().catch(() => undefined);
      }
    },
  };
}
