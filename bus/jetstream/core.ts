/**
 * Core NATS: fire-and-forget emit, subscriptions, and request/reply. Repliers of one subject share a
 * queue group, so each request reaches exactly one of them; a replier's thrown error travels back as a
 * header plus its message (never a stack) and becomes RemoteError on the requesting side.
 *
 * A request this process can answer itself is answered here, never sent: any replier of the group may
 * take it, and a request routed to another node can be lost with that node's link (core NATS is at most
 * once) and leave the caller waiting out its whole timeout — 15 s for a config write — for an answer that
 * is not coming.
 */
import {
  createInbox,
  headers as natsHeaders,
  type Msg,
  type Subscription as NatsSubscription,
} from '@nats-io/transport-node';
import type { CoreMessage, Headers, ReplyHandler, RequestOptions, Subscription } from '../bus.js';
import { BusError, NoRespondersError, RemoteError, RequestTimeoutError } from '../errors.js';
import { assertSubject, subjectMatches } from '../subject-match.js';
import { coreFromMsg, fromHeaders } from './codec.js';
import { once, untilLinkDrops, type EngineHost } from './host.js';
import { maxPayloadOf, PartJoiner, partsHeader, replyMessages } from './reply-parts.js';
import { isNoResponders, isTimeout, LinkDroppedError, translate } from './translate.js';

/** Marks a reply that carries a replier's error message instead of an answer. */
const errorHeader = 'Svc-Remote-Error';
const replyGroup = 'svc-repliers';
const dec = new TextDecoder();
const enc = new TextEncoder();

const noHeaders: Headers = Object.freeze({});

interface LocalReplier {
  readonly subject: string;
  answer(msg: CoreMessage): Promise<Uint8Array>;
}

export class CoreOps {
  /** The repliers of this process, first registered first asked. */
  private readonly local: LocalReplier[] = [];

  constructor(private readonly host: EngineHost) {}

  emit(subject: string, data: Uint8Array, headers?: Headers): void {
    this.host.assertOpen();
    assertSubject(subject, false);
    const hdrs = fromHeaders(headers);
    try {
      this.host.nc.publish(subject, data, hdrs ? { headers: hdrs } : undefined);
    } catch (error) {
      throw translate(error, `emit to ${subject}`);
    }
  }

  subscribe(subject: string, onMessage: (msg: CoreMessage) => void): Subscription {
    this.host.assertOpen();
    assertSubject(subject, true);
    const sub = this.natsSubscribe(subject, undefined, (msg) => {
      try {
        onMessage(coreFromMsg(msg));
      } catch (handlerError) {
        this.host.logger.error({ err: handlerError, subject }, 'bus: subscriber failed');
      }
    });
    return this.host.track({
      stop: once(() => {
        sub.unsubscribe();
        return Promise.resolve();
      }),
    });
  }

  /** A core subscription whose failures are logged, and whose refusal arrives as a bus error. */
  private natsSubscribe(
    subject: string,
    queue: string | undefined,
    onMsg: (msg: Msg) => void,
  ): NatsSubscription {
    try {
      return this.host.nc.subscribe(subject, {
        ...(queue ? { queue } : {}),
        callback: (error, msg) => {
          if (error) this.host.logger.error({ err: error, subject }, 'bus: subscription failed');
          else onMsg(msg);
        },
      });
    } catch (error) {
      throw translate(error, `subscription to ${subject}`);
    }
  }

  async request(subject: string, data: Uint8Array, opts: RequestOptions): Promise<CoreMessage> {
    this.host.assertOpen();
    assertSubject(subject, false);
    const here = this.local.find((replier) => subjectMatches(replier.subject, subject));
    if (here) return this.requestHere(here, subject, data, opts);
    const hdrs = fromHeaders(opts.headers);
    let reply: Msg;
    // A request in flight when the link drops went to a server that may be gone with it: no answer is
    // coming, and waiting out the whole timeout (15 s for a command) only delays the caller's retry.
    try {
      reply = await untilLinkDrops(
        this.host,
        this.host.nc.request(subject, data, {
          timeout: opts.timeoutMs,
          ...(hdrs ? { headers: hdrs } : {}),
        }),
      );
    } catch (error) {
      throw requestFailure(error, subject, opts.timeoutMs);
    }
    if (reply.headers?.has(errorHeader)) throw new RemoteError(dec.decode(reply.data));
    return coreFromMsg(reply);
  }

  /** `request` whose reply may come in parts (reply-parts.ts), joined here whole or not at all. */
  async requestLarge(subject: string, data: Uint8Array, opts: RequestOptions): Promise<CoreMessage> {
    this.host.assertOpen();
    assertSubject(subject, false);
    const here = this.local.find((replier) => subjectMatches(replier.subject, subject));
    if (here) return this.requestHere(here, subject, data, opts);
    const joiner = new PartJoiner(subject);
    let resolve!: (reply: CoreMessage) => void;
    let reject!: (error: unknown) => void;
    const whole = new Promise<CoreMessage>((ok, fail) => ((resolve = ok), (reject = fail)));
    const inbox = createInbox();
    // Subscribed before the request is published on the same connection, so the server has it first.
    const sub = this.natsSubscribe(inbox, undefined, (msg) => {
      try {
        if (msg.data.length === 0 && msg.headers?.code === 503)
          reject(new NoRespondersError(`no responders on ${subject}`));
        else if (msg.headers?.has(errorHeader)) reject(new RemoteError(dec.decode(msg.data)));
        else {
          const reply = joiner.add(msg);
          if (reply) resolve(reply);
        }
      } catch (error) {
        reject(error);
      }
    });
    const timer = setTimeout(
      () =>
        reject(
          joiner.missing(opts.timeoutMs) ??
            new RequestTimeoutError(`request on ${subject} timed out after ${opts.timeoutMs} ms`),
        ),
      opts.timeoutMs,
    );
    try {
      const hdrs = fromHeaders({ ...opts.headers, [partsHeader]: String(maxPayloadOf(this.host.nc.info)) });
      this.host.nc.publish(subject, data, { reply: inbox, ...(hdrs ? { headers: hdrs } : {}) });
      return await untilLinkDrops(this.host, whole);
    } catch (error) {
      if (error instanceof BusError) throw error;
      throw requestFailure(error, subject, opts.timeoutMs);
    } finally {
      clearTimeout(timer);
      sub.unsubscribe();
    }
  }

  /** A request answered by a replier of this process: its answer, its error as RemoteError, or a timeout. */
  private async requestHere(
    replier: LocalReplier,
    subject: string,
    data: Uint8Array,
    opts: RequestOptions,
  ): Promise<CoreMessage> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RequestTimeoutError(`request on ${subject} timed out after ${opts.timeoutMs} ms`)),
        opts.timeoutMs,
      );
    });
    const message: CoreMessage = { subject, headers: opts.headers ?? noHeaders, data };
    try {
      const answer = await Promise.race([replier.answer(message), expired]);
      return { subject, headers: noHeaders, data: answer };
    } catch (error) {
      if (error instanceof RequestTimeoutError) throw error;
      throw new RemoteError(error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  }

  reply(subject: string, handler: ReplyHandler): Subscription {
    this.host.assertOpen();
    assertSubject(subject, true);
    const inFlight = new Set<Promise<void>>();
    const here: LocalReplier = {
      subject,
      answer: (msg) => {
        const work = handler(msg);
        const settled = work.then(
          () => undefined,
          () => undefined,
        );
        inFlight.add(settled);
        void settled.finally(() => inFlight.delete(settled));
        return work;
      },
    };
    this.local.push(here);
    const answer = async (msg: Msg): Promise<void> => {
      try {
        const data = await handler(coreFromMsg(msg));
        const limit = maxPayloadOf(this.host.nc.info);
        const messages = replyMessages(msg, data, limit);
        if (!messages)
          throw new Error(
            `reply of ${data.length} bytes is larger than one bus message (${limit} bytes) and the asker reads one`,
          );
        for (const part of messages)
          msg.respond(part.data, part.headers ? { headers: part.headers } : undefined);
      } catch (error) {
        const hdrs = natsHeaders();
        hdrs.set(errorHeader, '1');
        msg.respond(enc.encode(error instanceof Error ? error.message : String(error)), { headers: hdrs });
      }
    };
    const sub = this.natsSubscribe(subject, replyGroup, (msg) => {
      const work = answer(msg)
        .catch((respondError: unknown) =>
          this.host.logger.warn({ err: respondError, subject }, 'bus: reply not sent'),
        )
        .finally(() => inFlight.delete(work));
      inFlight.add(work);
    });
    return this.host.track({
      stop: once(async () => {
        this.local.splice(this.local.indexOf(here), 1);
        sub.unsubscribe();
        await Promise.all([...inFlight]);
      }),
    });
  }
}

/** A request's failure as a bus error. */
function requestFailure(error: unknown, subject: string, timeoutMs: number): Error {
  if (error instanceof LinkDroppedError)
    return new RequestTimeoutError(`request on ${subject}: ${error.message} (it may have been handled)`);
  if (isNoResponders(error)) return new NoRespondersError(`no responders on ${subject}`, { cause: error });
  if (isTimeout(error))
    return new RequestTimeoutError(`request on ${subject} timed out after ${timeoutMs} ms`, { cause: error });
  return translate(error, `request on ${subject}`);
}
