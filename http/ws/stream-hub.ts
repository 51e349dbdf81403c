/**
 * The live stream's hub (spec "WebSocket and snapshot"): every connected dashboard, the frames pushed to
 * them, the one shared 5-second health tick and the query channel. A frame is encoded once and handed to
 * every client's queue; a slow client only ever costs its own bounded queue.
 */
import type { Logger } from 'pino';
import type { PushMode, SectionRegistry } from '../../projections/index.js';
import { ClientFrame, type QueryErrorCode, type QueryFailure } from '../../schema/index.js';
import { ApiError } from '../api-error.js';
import { refusal } from '../guard.js';
import { ask, type QuestionRegistry } from '../routes/query.routes.js';
import type { Actor } from '../types.js';
import { STREAM_PATH } from './stream-path.js';
import {
  defaultClientLimits,
  StreamClient,
  type ClientLimits,
  type Envelope,
  type SocketSink,
} from './stream-client.js';

/** Section pushes whose data replaces the whole section; the others (agent overlays) merge. */
const replaceKinds = new Set([
  'health',
  'seats',
  'org',
  'tools',
  'sandboxes',
  'tokens',
  'budget',
  'schedules',
  'events',
  // A marker (data null): a stalled socket needs only the newest.
  'fleet',
]);

/**
 * Refused query-frame tokens a socket may send before it is closed (1008): a query frame is otherwise a
 * free, unlogged oracle for guessing tokens at socket speed.
 */
const MAX_REFUSED_TOKENS = 5;

/** The spec's health pulse: how often every dashboard is sent the health section. */
export const healthPulseMs = 5_000;

const QueryId = ClientFrame.options[1].shape.id;
/**
 * A refused frame's id, echoed only when a query may carry it (a string of at most 128 characters, a finite
 * number): a frame of up to 64 KiB is otherwise echoed whole, and its id is no correlation a client made.
 */
const echoableId = (id: unknown): string | number | null => {
  const parsed = QueryId.safeParse(id);
  return parsed.success ? parsed.data : null;
};

export interface StreamHubOptions {
  readonly sections: SectionRegistry;
  readonly questions: QuestionRegistry;
  /** Who a query frame's token names, or null; the gateway installs its guard's check when it mounts the hub. */
  readonly verifyToken?: (token: string) => Actor | null;
  readonly logger: Logger;
  readonly healthIntervalMs?: number;
  readonly limits?: Partial<ClientLimits>;
  readonly now?: () => Date;
}

export interface HubStats {
  readonly clients: number;
  readonly dropped: number;
}

const codeOf = (err: unknown): QueryErrorCode => {
  if (!(err instanceof ApiError)) return 'query_failed';
  switch (err.code) {
    case 'not_found':
    case 'no_active_revision':
    case 'no_such_entity':
    case 'no_project':
      return 'not_found';
    case 'unknown_query':
      return 'unknown_query';
    case 'invalid_token':
      return 'unauthorized';
    case 'invalid_query':
    case 'bad_params':
      return 'invalid_query';
    default:
      // A route's own refusal (a question that runs a read route's handler) keeps its class by status.
      if (err.status === 404) return 'not_found';
      if (err.status === 401 || err.status === 403) return 'unauthorized';
      if (err.status === 400 || err.status === 422) return 'invalid_query';
      return 'query_failed';
  }
};

/** A socket's lines name the route it was opened on and its operator, as a request's lines do. */
function socketLine(client: StreamClient): { route: string; operator: string | null; client: number } {
  return { route: STREAM_PATH, operator: client.actor?.id ?? null, client: client.id };
}

export class StreamHub {
  private readonly clients = new Set<StreamClient>();
  private nextId = 1;
  /** Set by close (the drain): a socket upgraded after it, on a connection opened before, is not served. */
  private closed = false;
  private readonly limits: ClientLimits;
  private tick: NodeJS.Timeout | null = null;
  private readonly stopPushes: () => void;
  private verify: (token: string) => Actor | null;
  /** Frames pushed in this turn of the event loop, not yet handed to the sockets. */
  private pending: Envelope[] = [];

  constructor(private readonly opts: StreamHubOptions) {
    this.limits = { ...defaultClientLimits, ...opts.limits };
    this.verify = opts.verifyToken ?? (() => null);
    this.stopPushes = opts.sections.onPush((name, data, mode) => this.push(name, data, mode));
  }

  /** The gateway's token check (the same guard as every route). */
  useVerifier(verify: (token: string) => Actor | null): void {
    this.verify = verify;
  }

  private ts(): string {
    return (this.opts.now?.() ?? new Date()).toISOString();
  }

  /** A frame's UTF-8 bytes, made once whatever the number of sockets it goes to. */
  private encode(kind: string, data: unknown): Buffer {
    return Buffer.from(JSON.stringify({ kind, data, ts: this.ts() }));
  }

  /**
   * A socket drained after losing frames: it is sent the snapshot a socket opens with, carrying `dropped`
   * (the envelopes lost since its state was last whole), so the client replaces what it holds. The frames
   * pushed in this turn go first, as they would to a socket opening now: the snapshot already holds them.
   * Replace-style in the queue: should it have to wait, a newer resync supersedes it.
   */
  private readonly resync = (client: StreamClient): void => {
    this.flush();
    const dropped = client.takeUnsynced();
    if (dropped === 0 || client.closed) return;
    const text = JSON.stringify({
      kind: 'snapshot',
      data: this.opts.sections.snapshot(),
      ts: this.ts(),
      dropped,
    });
    client.deliver(Buffer.from(text), 'snapshot', true);
    this.opts.logger.debug(
      { event: 'stream_client_resync', ...socketLine(client), dropped },
      'stream client resync',
    );
  };

  /** Starts the shared health tick (one timer for every socket). */
  start(): void {
    this.tick ??= setInterval(
      () => this.push('health', this.opts.sections.current('health'), 'replace'),
      this.opts.healthIntervalMs ?? healthPulseMs,
    );
    this.tick.unref();
  }

  /** Connected dashboards (the health envelope's `clients`). */
  count(): number {
    return this.clients.size;
  }

  stats(): HubStats {
    this.flush();
    let dropped = 0;
    for (const c of this.clients) dropped += c.dropped;
    return { clients: this.clients.size, dropped };
  }

  /** Per-socket queue facts (never in the public health envelope). */
  clientStats(): Array<{ id: number; queued: number; queuedBytes: number; dropped: number; sent: number }> {
    this.flush();
    return [...this.clients].map((c) => ({
      id: c.id,
      queued: c.queued,
      queuedBytes: c.queuedBytes,
      dropped: c.dropped,
      sent: c.sent,
    }));
  }

  /** A socket opened: it is sent the snapshot first. */
  attach(sink: SocketSink, actor: Actor | null, token: string | null): StreamClient {
    const client = new StreamClient(this.nextId++, sink, token, actor, this.limits, this.resync);
    if (this.closed) {
      client.end(1001, 'node stopping');
      return client;
    }
    // What was pushed before this socket opened is not its to receive (the snapshot holds it).
    this.flush();
    this.clients.add(client);
    client.deliver(this.encode('snapshot', this.opts.sections.snapshot()), 'snapshot', false);
    return client;
  }

  detach(client: StreamClient): void {
    // No flush: the socket is closed by now; what is pending goes to the others at the end of the turn.
    if (client.dropped > 0)
      this.opts.logger.info(
        { event: 'stream_client_closed', ...socketLine(client), dropped: client.dropped },
        'stream client closed',
      );
    this.clients.delete(client);
    client.release();
  }

  /**
   * One frame to every socket, encoded once. The frames pushed in one turn of the event loop (a burst of
   * events, the sections re-sent on an apply) go out together at its end, each socket's in one corked
   * write: one write to the kernel per socket, not one per frame and socket.
   */
  push(kind: string, data: unknown, mode: PushMode = replaceKinds.has(kind) ? 'replace' : 'merge'): void {
    if (this.clients.size === 0) return;
    this.pending.push({ text: this.encode(kind, data), kind, replace: mode === 'replace' });
    if (this.pending.length === 1) queueMicrotask(() => this.flush());
  }

  /** Hands the pending frames to every socket; first thing wherever the order or the set of sockets matters. */
  private flush(): void {
    if (this.pending.length === 0) return;
    const envelopes = this.pending;
    this.pending = [];
    for (const client of this.clients) client.deliverAll(envelopes);
  }

  /** Re-sends sections whole (config-derived ones on every apply). */
  resend(names: readonly string[]): void {
    for (const name of names) this.push(name, this.opts.sections.current(name), 'replace');
  }

  /**
   * A frame from a client: `ping`, or a `query` answered on the same socket. `text` is null for a binary
   * frame, which is not read (the frames are JSON text): it is refused saying so, not as a malformed one.
   */
  receive(client: StreamClient, text: string | null): void {
    if (text === null) {
      this.fail(client, {
        id: null,
        what: null,
        error: 'bad_frame',
        detail: 'a binary frame is not read: send each frame as JSON text',
      });
      return;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = undefined;
    }
    const parsed = ClientFrame.safeParse(raw);
    if (!parsed.success) {
      const id = typeof raw === 'object' && raw !== null && 'id' in raw ? raw.id : null;
      this.fail(client, {
        id: echoableId(id),
        what: null,
        error: 'bad_frame',
        detail: 'a client frame is {"kind":"ping"} or {"kind":"query","id","what","params"?,"token"?}',
      });
      return;
    }
    const frame = parsed.data;
    // An answer follows every frame pushed before it, as it would unbatched.
    this.flush();
    if (frame.kind === 'ping') {
      client.deliver(this.encode('pong', null), 'pong', false);
      return;
    }
    let actor = client.actor;
    if (frame.token !== undefined) {
      const named = this.verify(frame.token);
      if (named === null) {
        // The route's own refusal of a wrong bearer (code, status, detail, hint), as over HTTP.
        const refused = refusal('wrong');
        this.fail(client, {
          id: frame.id,
          what: frame.what,
          error: 'unauthorized',
          code: refused.body.error,
          status: refused.status,
          detail: refused.body.detail,
          hint: refused.body.hint,
        });
        client.refusedTokens += 1;
        if (client.refusedTokens >= MAX_REFUSED_TOKENS) {
          this.opts.logger.warn(
            { event: 'stream_tokens_refused', ...socketLine(client), refused: client.refusedTokens },
            'stream client closed: too many refused tokens',
          );
          client.end(1008, 'too many refused tokens');
        }
        return;
      }
      actor = named;
    }
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(frame.params ?? {})) params.set(k, String(v));
    // The query's operator: the one its own token names, else the socket's.
    const log = this.opts.logger.child({
      route: STREAM_PATH,
      operator: actor?.id ?? null,
      query: frame.what,
      client: client.id,
    });
    ask(this.opts.questions, frame.what, params, { actor, log }).then(
      (data) =>
        this.answer(client, this.encode('result', { id: frame.id, what: frame.what, data }), 'result', () =>
          this.shed(frame.id, frame.what),
        ),
      (err: unknown) => {
        const error = codeOf(err);
        // A coded refusal is an answer, not a failure of the node: only a throw is an error line.
        if (error === 'query_failed' && !(err instanceof ApiError && err.status < 500))
          log.error({ err, event: 'query_failed' }, 'query failed');
        this.fail(client, {
          id: frame.id,
          what: frame.what,
          error,
          // The route's own code beside the class: the same refusal as over HTTP (`no_container`, …).
          ...(err instanceof ApiError
            ? {
                code: String(err.code),
                status: err.status,
                detail: err.detail,
                ...(err.hint ? { hint: err.hint } : {}),
              }
            : {}),
        });
      },
    );
  }

  /** A refusal is an answer too: small, so it stands in for itself should the queue shed it. */
  private fail(client: StreamClient, failure: QueryFailure): void {
    const text = this.encode('error', failure);
    this.answer(client, text, 'error', () => text);
  }

  /** What a client is sent in place of an answer its queue shed: the question is settled, to ask again. */
  private shed(id: string | number, what: string): Buffer {
    const failure: QueryFailure = {
      id,
      what,
      error: 'query_failed',
      code: 'answer_dropped',
      status: 503,
      detail: 'the answer waited while this socket read too slowly and was dropped from its queue',
      hint: 'ask again; the stream sends a fresh snapshot once the socket has caught up',
    };
    return this.encode('error', failure);
  }

  private answer(client: StreamClient, text: Buffer, kind: string, stub: () => Buffer): void {
    this.flush();
    if (client.deliverAnswer(text, kind, stub)) return;
    if (client.closed) return;
    this.opts.logger.warn(
      { event: 'stream_answers_waiting', ...socketLine(client), waiting: client.answersWaiting },
      'stream client closed: too many unanswered queries',
    );
  }

  /** Closes every socket (drain) and stops the tick. */
  close(): void {
    this.closed = true;
    this.flush();
    if (this.tick) clearInterval(this.tick);
    this.tick = null;
    this.stopPushes();
    for (const client of [...this.clients]) client.end(1001, 'node stopping');
  }
}
