/**
 * Core messaging of the memory engine: fire-and-forget subscriptions and request/reply. Like NATS,
 * every subscriber sees each message, while each request goes to exactly one replier (a queue group).
 */
import type { Logger } from 'pino';
import type { CoreMessage, Headers, ReplyHandler, RequestOptions, Subscription } from '../bus.js';
import { BusClosedError, NoRespondersError, RemoteError, RequestTimeoutError } from '../errors.js';
import { subjectMatches } from '../subject-match.js';

interface Subscriber {
  readonly filter: string;
  readonly onMessage: (msg: CoreMessage) => void;
}

interface Replier {
  readonly filter: string;
  readonly handler: ReplyHandler;
  inFlight: number;
}

export class CoreRouter {
  private readonly subscribers = new Set<Subscriber>();
  /**
   * The subscribers each subject reaches, found once: every stored message is offered to the core
   * subscribers, and matching each filter again per message was most of that. Dropped on any change.
   */
  private readonly reached = new Map<string, readonly Subscriber[]>();
  private readonly repliers = new Set<Replier>();
  /** Requests waiting for their answer, failed by `clear` when the bus closes. */
  private readonly waiting = new Set<(error: Error) => void>();
  private turn = 0;

  constructor(private readonly logger: Logger) {}

  /** The subscribers a message on `subject` reaches now. */
  reaches(subject: string): readonly Subscriber[] {
    if (this.subscribers.size === 0) return [];
    let reached = this.reached.get(subject);
    if (reached === undefined) {
      reached = [...this.subscribers].filter((sub) => subjectMatches(sub.filter, subject));
      // Subjects are few in practice (event types, seat inboxes); a bound keeps a flood harmless.
      if (this.reached.size >= 10_000) this.reached.clear();
      this.reached.set(subject, reached);
    }
    return reached;
  }

  deliver(subject: string, data: Uint8Array, headers: Headers): void {
    const reached = this.reaches(subject);
    if (reached.length === 0) return;
    const message: CoreMessage = { subject, headers, data };
    for (const sub of reached) {
      // One that stopped while this message was being delivered gets no more of it.
      if (!this.subscribers.has(sub)) continue;
      try {
        sub.onMessage(message);
      } catch (error) {
        this.logger.error({ err: error, subject }, 'subscriber failed');
      }
    }
  }

  subscribe(filter: string, onMessage: (msg: CoreMessage) => void): Subscription {
    const sub: Subscriber = { filter, onMessage };
    this.subscribers.add(sub);
    this.reached.clear();
    return {
      stop: () => {
        this.subscribers.delete(sub);
        this.reached.clear();
        return Promise.resolve();
      },
    };
  }

  reply(filter: string, handler: ReplyHandler): Subscription {
    const replier: Replier = { filter, handler, inFlight: 0 };
    this.repliers.add(replier);
    return {
      stop: async () => {
        this.repliers.delete(replier);
        while (replier.inFlight > 0) await new Promise((resolve) => setImmediate(resolve));
      },
    };
  }

  async request(subject: string, data: Uint8Array, opts: RequestOptions): Promise<CoreMessage> {
    const candidates = [...this.repliers].filter((r) => subjectMatches(r.filter, subject));
    if (candidates.length === 0) throw new NoRespondersError(`no responders on ${subject}`);
    const replier = candidates[this.turn++ % candidates.length] as Replier;
    replier.inFlight += 1;
    let timer: NodeJS.Timeout | undefined;
    let fail: (error: Error) => void = () => undefined;
    const timeout = new Promise<never>((_, reject) => {
      fail = reject;
      timer = setTimeout(
        () => reject(new RequestTimeoutError(`request on ${subject} timed out after ${opts.timeoutMs} ms`)),
        opts.timeoutMs,
      );
    });
    this.waiting.add(fail);
    // Copy so neither side can alter the other's bytes, as over a wire.
    const handled = replier.handler({ subject, headers: opts.headers ?? {}, data: data.slice() }).then(
      (answer) => ({ subject, headers: {}, data: answer.slice() }) satisfies CoreMessage,
      (error: unknown) => {
        throw new RemoteError(error instanceof Error ? error.message : String(error));
      },
    );
    try {
      return await Promise.race([handled, timeout]);
    } finally {
      clearTimeout(timer);
      this.waiting.delete(fail);
      void handled.catch(() => undefined).finally(() => (replier.inFlight -= 1));
    }
  }

  clear(): void {
    this.subscribers.clear();
    this.reached.clear();
    this.repliers.clear();
    for (const fail of this.waiting) fail(new BusClosedError('the bus closed before the reply arrived'));
    this.waiting.clear();
  }
}
