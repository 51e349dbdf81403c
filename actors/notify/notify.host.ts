/**
 * Outbound notification transports (`notification_transports`, ops/notifications.md): each transport (a
 * webhook, a chat channel's incoming hook, a pager, a mailbox, phones by SMS) is a durable consumer of `SVC_EVENTS` shared by
 * the fleet (one node sends each event), which sends the events it takes, in order (one in flight across the
 * fleet), keyed by the event id (`webhook-id`, the pager's `dedup_key`, the `Message-ID`). A failed attempt waits (1 s,
 * doubling, or longer when the answer's `Retry-After` asks, at most a minute) with the event held, so the events behind it wait too; a 4xx other than
 * 408/429 (an SMTP 5yz), or ten failed attempts, gives the event up with a `notification_failed` event (a report
 * that could not be delivered only with a warning line, so two transports never report each other without end); a node that stops
 * meanwhile leaves it to the next (which starts its attempts again). An event older than an hour when its
 * turn comes is not sent. An apply swaps what changed: a transport keeps its consumer's position across
 * changes of its settings, so nothing is skipped or sent twice by a swap (a node killed mid-attempt sends
 * that event again: at least once, under the same key). No URL, key or password reaches a log line.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import {
  eventTypeOf,
  newEvent,
  publishEvent,
  RedeliverError,
  Streams,
  type Bus,
  type DeliveredMessage,
  type Subscription,
} from '../../bus/index.js';
import {
  EventCategory,
  EventRecord,
  substituteRefs,
  outboundTransports,
  type Company,
} from '../../schema/index.js';
import type { SubsystemApplier } from '../config/index.js';
import { nodePost, type HttpPost } from '../seat/providers/http-post.js';
import { mailSend, smtpSend, type SendMail } from './mail.js';
import { requestOf } from './requests.js';
import { smsSend, type PostOnce } from './sms.js';
import {
  backoffMs,
  MAX_ATTEMPTS,
  newRecipients,
  resolveTransport,
  retryAfterMs,
  STALE_AFTER_MS,
  takes,
  unusable,
  verdictOf,
  type Recipients,
  type ResolvedTransport,
  type Verdict,
} from './transport.js';

export interface TransportsOptions {
  readonly bus: Bus;
  readonly nodeId: string;
  readonly logger: Logger;
  /** `${VAR}` references: the secret store, then the environment. */
  readonly resolve: (name: string) => string | undefined;
  readonly post?: HttpPost;
  readonly sendMail?: SendMail;
  readonly now?: () => number;
  /**
   * Waits `ms` between attempts, rejecting when `signal` aborts (a stop or swap). Default a timer; a test
   * drives the ten attempts of a give-up without their six minutes.
   */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<unknown>;
}

export interface Transports {
  /** Applied with the restart-required items (the spec's "transport swap"). */
  readonly applier: SubsystemApplier;
  /** The transports running on this node, by name. */
  running(): string[];
  stop(): Promise<void>;
}

const decoder = new TextDecoder();
/** What an attempt's answers asked of the next one (`Retry-After`), in ms. */
interface RetryAsked {
  ms: number | null;
}
const noAnswer = { status: null, verdict: 'retry' } as const;

/** A durable consumer name for a transport name (any text): readable part plus a hash of the whole. */
export function durableOf(name: string): string {
  const readable = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
  return `notify_${readable}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

export function startTransports(opts: TransportsOptions): Transports {
  const { bus } = opts;
  const post = opts.post ?? nodePost;
  const sendMail = opts.sendMail ?? smtpSend;
  const now = opts.now ?? Date.now;
  const wait = opts.sleep ?? ((ms: number, signal: AbortSignal) => sleep(ms, undefined, { signal }));
  const log = opts.logger.child({ component: 'notify' });
  const running = new Map<string, { key: string; sub: Subscription; stop: AbortController }>();
  let stopped = false;

  const giveUp = async (
    t: ResolvedTransport,
    event: EventRecord,
    attempts: number,
    status: number | null,
    reason: 'refused' | 'gave_up',
  ): Promise<void> => {
    log.warn(
      {
        event: 'notification_failed',
        transport: t.name,
        event_id: event.id,
        event_type: event.type,
        attempts,
        status,
        reason,
      },
      'notification_failed',
    );
    // A report that could not be delivered is not reported again: two transports sending each other's
    // `notification_failed` would otherwise record each other's failures without end.
    if (event.type === 'notification_failed') return;
    await publishEvent(
      bus,
      newEvent({
        type: 'notification_failed',
        category: EventCategory.Notification,
        source: `${opts.nodeId}/notify`,
        summary: `${t.name}: ${event.type} not delivered (${reason === 'refused' ? `answered ${status}` : `${attempts} attempts`})`,
        actor: `transport:${t.name}`,
        failed: true,
        ...(event.agent_id !== undefined ? { agent_id: event.agent_id } : {}),
        trace: { trace_id: event.trace_id, parent_span_id: event.span_id },
        payload: { transport: t.name, event_id: event.id, event_type: event.type, attempts, status, reason },
      }),
    );
  };

  const deliver =
    (t: ResolvedTransport, signal: AbortSignal) =>
    async (msg: DeliveredMessage): Promise<void> => {
      // Most events are of no chosen type: told by the subject, without decoding the record.
      const type = eventTypeOf(msg.subject);
      if (type === null || !t.events.has(type)) return;
      let event: EventRecord;
      try {
        const parsed = EventRecord.safeParse(JSON.parse(decoder.decode(msg.data)));
        if (!parsed.success) return;
        event = parsed.data;
      } catch {
        return; // not an event this build reads: nothing to send
      }
      // A transport never reports on its own failures (a failing hook would feed itself).
      if (event.type === 'notification_failed' && event.actor === `transport:${t.name}`) return;
      if (!takes(t, event)) return;
      if (now() - Date.parse(event.timestamp) > STALE_AFTER_MS) {
        log.info(
          { event: 'notification_stale', transport: t.name, event_id: event.id },
          'notification_stale',
        );
        return;
      }
      // Attempts are made here, the message held, so the events behind a failing one wait in order.
      const reached = newRecipients(); // recipients (`sms`, `email`) settled: not sent it again
      for (let attempt = 1; ; attempt += 1) {
        const asked: RetryAsked = { ms: null };
        // An attempt that throws got no answer: its error is never logged (it may quote the URL).
        const { status, verdict } = await send(t, event, reached, asked).catch(() => noAnswer);
        if (verdict === 'sent') return;
        if (verdict === 'refused') return giveUp(t, event, attempt, status, 'refused');
        if (attempt >= MAX_ATTEMPTS) return giveUp(t, event, attempt, status, 'gave_up');
        log.info(
          { event: 'notification_retry', transport: t.name, event_id: event.id, attempt, status },
          'notification_retry',
        );
        try {
          // A rate-limited hook's Retry-After stretches the wait (within a minute), never shortens it.
          await wait(Math.max(backoffMs(attempt + 1), asked.ms ?? 0), signal);
        } catch {
          // Stopped or swapped while waiting: the event stays for the transport's next consumer.
          throw new RedeliverError(`transport ${t.name} stopped`);
        }
      }
    };

  /**
   * One attempt: the answer's status (HTTP, or the SMTP reply code), null when none came (refused, reset,
   * timed out; the URL is never logged), and what it means.
   */
  const send = async (
    t: ResolvedTransport,
    event: EventRecord,
    reached: Recipients,
    asked: RetryAsked,
  ): Promise<{ status: number | null; verdict: Verdict }> => {
    if (t.type === 'email') return mailSend(sendMail, t, event, reached);
    if (t.type === 'sms') return smsSend(postWith(asked), t, event, reached);
    const status = await postWith(asked)(t.url, requestOf(t, event, now()), t.timeoutMs);
    return { status, verdict: verdictOf(status) };
  };

  /**
   * One POST: the answer's status, or null when none came (refused, reset, timed out). The longest
   * `Retry-After` of the attempt's answers is kept in `asked`.
   */
  const postWith =
    (asked: RetryAsked): PostOnce =>
    async (url, request, timeoutMs) => {
      try {
        // Not cut by a stop: an attempt under way finishes (within its timeout), so a delivered event is
        // acknowledged rather than sent again by the next holder.
        const answer = await post(url, { ...request, signal: AbortSignal.timeout(timeoutMs) });
        answer.discard();
        const ms = retryAfterMs(answer.header('retry-after'), now());
        if (ms !== null) asked.ms = Math.max(asked.ms ?? 0, ms);
        return answer.status;
      } catch {
        return null; // no answer: tried again
      }
    };

  const start = async (t: ResolvedTransport, key: string): Promise<void> => {
    const stop = new AbortController();
    const sub = await bus.consume(
      Streams.Events,
      // New events only: a transport added today does not send the history; one at a time, fleet-wide, in order.
      {
        durable: durableOf(t.name),
        deliverPolicy: 'new',
        concurrency: 1,
        maxInFlight: 1,
        ackWaitMs: 2 * 60_000,
      },
      deliver(t, stop.signal),
    );
    running.set(t.name, { key, sub, stop });
  };

  const apply = async (company: Company | null): Promise<void> => {
    if (stopped) return;
    const resolveText = (text: string): string => substituteRefs(text, opts.resolve);
    const wanted = new Map<string, { t: ResolvedTransport; key: string }>();
    for (const [name, settings] of outboundTransports(company?.notification_transports)) {
      const t = resolveTransport(name, settings, resolveText);
      const why = unusable(t);
      if (why !== null) {
        log.warn({ event: 'notification_transport_unusable', transport: name }, `${why}: not started`);
        continue;
      }
      const key = JSON.stringify({ ...t, events: [...t.events], seats: t.seats && [...t.seats] });
      wanted.set(name, { t, key: createHash('sha256').update(key).digest('hex') });
    }
    for (const [name, current] of [...running]) {
      if (wanted.get(name)?.key === current.key) continue;
      running.delete(name);
      current.stop.abort();
      await current.sub.stop();
    }
    for (const [name, { t, key }] of wanted) {
      if (running.has(name)) continue;
      await start(t, key);
      log.info(
        { event: 'notification_transport_started', transport: name, events: [...t.events] },
        'notification transport started',
      );
    }
  };

  return {
    applier: {
      name: 'tool_servers',
      apply: (next) => apply(next),
      rollback: (previous) => apply(previous),
    },
    running: () => [...running.keys()].sort(),
    async stop() {
      stopped = true;
      const subs = [...running.values()];
      running.clear();
      for (const r of subs) r.stop.abort();
      await Promise.all(subs.map((r) => r.sub.stop()));
    },
  };
}
