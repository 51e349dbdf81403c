/**
 * The dashboard's one link to its node: `WS /ws/stream` (snapshot first, then frames), questions asked on
 * the socket's query channel, reconnection with backoff (every reconnect starts with a fresh snapshot),
 * and polling `/stream/snapshot` while the socket is refused or down.
 */
import { applyFrame, initialState, type LiveState } from './store.js';
import { authHeaders, writeToken } from './token.js';
import { QueryRefused, type Frame } from './types.js';

export type Params = Readonly<Record<string, string | number | boolean | undefined>>;

interface Pending {
  resolve(data: unknown): void;
  reject(err: Error): void;
  timer: number;
}

const POLL_MS = 5_000;
const QUERY_TIMEOUT_MS = 15_000;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 15_000;
/**
 * The rooms hear of a change at most once per this many ms: a burst of event frames is folded as it arrives
 * but rendered a few times, not once per frame. A page that rendered every frame read its socket too slowly
 * in a burst of a thousand events, and the node dropped the oldest frames queued for it, answers included.
 */
const NOTIFY_MS = 50;

const DOWN = 'The node does not answer; retrying.';
/** Said when the node told the page it is stopping (a drain), not mistaken for a node gone missing. */
const DRAINING = 'The node is shutting down (draining); retrying until it is back.';
/** The close code the node's hub ends every socket with when it drains ("going away"). */
const GOING_AWAY = 1001;
/**
 * A drain is said for this long after the node last said it was draining: a node that drained and never
 * came back (stopped for good, its host gone) then reads as any node that does not answer.
 */
const DRAIN_SAID_MS = 60_000;

function cleanParams(params: Params): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') out[k] = v;
  return out;
}

/** `svc.token.<base64url of the UTF-8 token>`: a subprotocol value may hold only token characters. */
function tokenProtocol(token: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(token)) binary += String.fromCharCode(byte);
  return `svc.token.${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

/** The socket's refusal class of an HTTP status, so a refusal reads the same either way. */
function classOf(status: number): string {
  if (status === 404) return 'not_found';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 400 || status === 422) return 'invalid_query';
  return 'query_failed';
}

export class Connection {
  private state: LiveState = initialState;
  private socket: WebSocket | null = null;
  private attempts = 0;
  private retryTimer: number | null = null;
  private pollTimer: number | null = null;
  private pingTimer: number | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stopped = false;
  private readonly listeners = new Set<(state: LiveState) => void>();
  private notifyTimer: number | null = null;
  /**
   * When the node last said it is stopping (its health as its socket closed, the close itself, a 503
   * `draining`); null once it answers again, or once it has not answered for DRAIN_SAID_MS since.
   */
  private drainSaidAt: number | null = null;
  /**
   * The node refuses reads without a token and none is held: nothing is asked (no poll, no socket) until
   * one is entered, as every ask would be refused alike.
   */
  private awaitingToken = false;

  constructor(private token: string | null) {}

  get current(): LiveState {
    return this.state;
  }

  get hasToken(): boolean {
    return this.token !== null;
  }

  subscribe(listener: (state: LiveState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A change of the page's own making (a token, the link) is told at once; a frame's, within NOTIFY_MS. */
  private set(next: LiveState, batch = false): void {
    if (next === this.state) return;
    this.state = next;
    if (batch) {
      this.notifyTimer ??= window.setTimeout(() => this.notify(), NOTIFY_MS);
      return;
    }
    this.notify();
  }

  private notify(): void {
    if (this.notifyTimer !== null) clearTimeout(this.notifyTimer);
    this.notifyTimer = null;
    for (const listener of this.listeners) listener(this.state);
  }

  /** Whether the node said it is stopping, recently enough to be believed. */
  private draining(): boolean {
    if (this.drainSaidAt !== null && Date.now() - this.drainSaidAt >= DRAIN_SAID_MS) this.drainSaidAt = null;
    return this.drainSaidAt !== null;
  }

  start(): void {
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    this.clearTimers();
    this.socket?.close(1000, 'dashboard closed');
    this.socket = null;
  }

  /** A new token (or none): the socket is reopened with it, so guarded questions answer. */
  useToken(token: string | null): void {
    this.token = token;
    this.attempts = 0;
    this.awaitingToken = false;
    if (token !== null && this.state.tokenDropped) this.set({ ...this.state, tokenDropped: false });
    // Asked again with it: the link is being tried, no longer known to need a token.
    if (this.state.link === 'token-needed') this.set({ ...this.state, link: 'connecting' });
    if (this.socket !== null) {
      // Its close schedules the reconnect.
      this.socket.close(1000, 'token changed');
      return;
    }
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.open();
  }

  private clearTimers(): void {
    for (const t of [this.retryTimer, this.pollTimer, this.pingTimer]) if (t !== null) clearTimeout(t);
    this.retryTimer = this.pollTimer = this.pingTimer = null;
  }

  private open(): void {
    if (this.stopped) return;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    let opened = false;
    // The token rides as a subprotocol, never in the URL (which the browser prints when a connection fails).
    const url = `${scheme}://${location.host}/ws/stream`;
    const socket =
      this.token === null
        ? new WebSocket(url)
        : new WebSocket(url, ['svc.stream', tokenProtocol(this.token)]);
    this.socket = socket;
    socket.onopen = () => {
      opened = true;
      this.attempts = 0;
      this.drainSaidAt = null;
      this.stopPolling();
      this.schedulePing();
    };
    socket.onmessage = (message: MessageEvent<string>) => this.receive(message.data);
    socket.onclose = (closed: CloseEvent) => {
      if (this.socket !== socket) return;
      // Only the close of a socket that was open says so: a failed reconnect still holds the last health.
      if (opened && (closed.code === GOING_AWAY || this.state.snapshot?.health?.status === 'shutting_down'))
        this.drainSaidAt = Date.now();
      this.socket = null;
      if (this.pingTimer !== null) clearTimeout(this.pingTimer);
      for (const [id, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(new QueryRefused('disconnected', 'the connection to the node closed'));
        this.pending.delete(id);
      }
      if (this.stopped || this.awaitingToken) return;
      // Refused or dropped: show what polling can fetch until the socket is back.
      this.set({
        ...this.state,
        link: opened ? 'connecting' : this.state.link,
        problem: this.draining() ? DRAINING : this.state.problem === DRAINING ? DOWN : this.state.problem,
      });
      this.startPolling();
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    if (this.awaitingToken) return;
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.attempts);
    this.attempts += 1;
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(() => {
      this.retryTimer = null;
      this.open();
    }, delay);
  }

  private schedulePing(): void {
    // Keeps idle proxies from closing the socket; the answer (`pong`) needs no handling.
    this.pingTimer = window.setTimeout(() => {
      if (this.socket?.readyState === WebSocket.OPEN) this.socket.send('{"kind":"ping"}');
      this.schedulePing();
    }, 30_000);
  }

  private receive(text: string): void {
    let frame: Frame;
    try {
      frame = JSON.parse(text) as Frame;
    } catch {
      return;
    }
    if (frame.kind === 'result' || frame.kind === 'error') {
      const data = (frame.data ?? {}) as {
        id?: unknown;
        data?: unknown;
        error?: string;
        code?: string;
        detail?: string;
        hint?: string;
      };
      const pending = typeof data.id === 'number' ? this.pending.get(data.id) : undefined;
      if (!pending || typeof data.id !== 'number') return;
      this.pending.delete(data.id);
      clearTimeout(pending.timer);
      if (frame.kind === 'result') pending.resolve(data.data);
      // The route's own code when the refusal has one, as the same question over HTTP shows it.
      else
        pending.reject(
          new QueryRefused(data.code ?? data.error ?? 'query_failed', data.detail, data.error, data.hint),
        );
      return;
    }
    const next = applyFrame(this.state, frame);
    this.set(next.link === 'live' ? next : { ...next, link: 'live' }, true);
  }

  private startPolling(): void {
    if (this.pollTimer !== null || this.stopped || this.awaitingToken) return;
    const poll = async (): Promise<void> => {
      await this.pollOnce();
      if (this.pollTimer !== null) this.pollTimer = window.setTimeout(() => void poll(), POLL_MS);
    };
    this.pollTimer = window.setTimeout(() => void poll(), 0);
  }

  private stopPolling(): void {
    if (this.pollTimer !== null) clearTimeout(this.pollTimer);
    this.pollTimer = null;
  }

  private async pollOnce(): Promise<void> {
    try {
      const res = await fetch('/stream/snapshot', { headers: authHeaders(this.token), cache: 'no-store' });
      if (this.socket?.readyState === WebSocket.OPEN) return;
      if (res.status === 401 && this.token !== null) {
        // The held token is refused (mistyped, rotated): drop it and read as far as reads are open, asking
        // now rather than at the next poll.
        writeToken(null);
        this.useToken(null);
        this.set({ ...this.state, tokenDropped: true });
        return this.pollOnce();
      }
      if (res.status === 401) {
        // Until a token is entered (`useToken`), every poll and socket would be refused alike.
        this.awaitingToken = true;
        this.stopPolling();
        if (this.retryTimer !== null) clearTimeout(this.retryTimer);
        this.retryTimer = null;
        this.set({
          ...this.state,
          link: 'token-needed',
          readsRefused: true,
          problem: 'This node needs an operator token to read.',
        });
        return;
      }
      if (res.status === 503) {
        const body = (await res.json().catch(() => null)) as { error?: unknown } | null;
        if (body?.error === 'draining') this.drainSaidAt = Date.now();
      }
      if (!res.ok) throw new Error(`status ${res.status}`);
      this.drainSaidAt = null;
      const frame: Frame = { kind: 'snapshot', data: await res.json(), ts: new Date().toISOString() };
      this.set({ ...applyFrame(this.state, frame), link: 'polling' });
    } catch {
      this.set({ ...this.state, link: 'offline', problem: this.draining() ? DRAINING : DOWN });
    }
  }

  /** Asks a question: on the socket when it is open, else through `GET /query/{what}`. */
  ask(what: string, params: Params = {}): Promise<unknown> {
    const clean = cleanParams(params);
    const socket = this.socket;
    if (socket === null || socket.readyState !== WebSocket.OPEN) return this.askOverHttp(what, clean);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = window.setTimeout(() => {
        this.pending.delete(id);
        reject(new QueryRefused('timeout', `no answer to ${what} within ${QUERY_TIMEOUT_MS / 1000} s`));
      }, QUERY_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      socket.send(JSON.stringify({ kind: 'query', id, what, params: clean }));
    });
  }

  private async askOverHttp(
    what: string,
    params: Record<string, string | number | boolean>,
  ): Promise<unknown> {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) query.set(k, String(v));
    const text = query.toString();
    const suffix = text === '' ? '' : `?${text}`;
    return this.fetchJson(`/query/${encodeURIComponent(what)}${suffix}`);
  }

  /**
   * Why this node's read models may be behind (a read route's `Svc-Stale`: `bus unreachable since …`), or
   * null. The socket carries no such mark; `/org` is a read this tab may make whenever it holds a snapshot.
   */
  async staleness(): Promise<string | null> {
    try {
      const res = await fetch('/org', { headers: authHeaders(this.token), cache: 'no-store' });
      await res.arrayBuffer();
      return res.ok ? res.headers.get('svc-stale') : null;
    } catch {
      return null;
    }
  }

  /** A route that is no question (a seat's commands), with the token when one is held. */
  async fetchJson(path: string, init: RequestInit = {}): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(path, {
        ...init,
        headers: { Accept: 'application/json', ...authHeaders(this.token), ...(init.headers ?? {}) },
        cache: 'no-store',
      });
    } catch {
      // No answer at all (the node is down): unanswered, as a socket that closed, not the browser's words.
      throw new QueryRefused('disconnected', 'the node does not answer');
    }
    const body = (await res.json().catch(() => null)) as {
      error?: string;
      detail?: string;
      hint?: string;
    } | null;
    if (!res.ok)
      throw new QueryRefused(
        body?.error ?? `http_${res.status}`,
        body?.detail,
        classOf(res.status),
        body?.hint,
      );
    return body;
  }
}
