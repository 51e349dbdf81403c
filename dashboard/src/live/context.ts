/** The connection and its state, shared with every room through Preact context. */
import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { Connection, Params } from './connection.js';
import type { LiveState } from './store.js';

export const ConnectionContext = createContext<Connection | null>(null);

export function useConnection(): Connection {
  const connection = useContext(ConnectionContext);
  if (connection === null) throw new Error('useConnection outside <ConnectionContext.Provider>');
  return connection;
}

/** Whether two slices show the same: the same value, or plain objects whose every key holds the same value. */
function sameSlice(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => k in y && Object.is(x[k], y[k]));
}

/**
 * The part of the live state a component shows (`select` picks sections, which a frame replaces only when
 * it carries them, or plain values; an object of them is compared key by key). The component redraws when
 * that part changes, not on every frame: the node's 5 s health pulse redraws what shows health, an event
 * what shows events, and nothing else.
 */
export function useLiveSlice<T>(select: (state: LiveState) => T): T {
  const connection = useConnection();
  const value = select(connection.current);
  const [, redraw] = useState(0);
  // The latest render's selector (it may read props) and what it drew.
  const drawn = useRef({ select, value });
  drawn.current = { select, value };
  useEffect(() => {
    const follow = (state: LiveState): void => {
      if (!sameSlice(drawn.current.value, drawn.current.select(state))) redraw((n) => n + 1);
    };
    // A frame told between the render and this effect.
    follow(connection.current);
    return connection.subscribe(follow);
  }, [connection]);
  return value;
}

interface Refusal {
  readonly code: string;
  readonly kind: string;
  readonly message: string;
  readonly hint?: string;
}

export interface Asked<T> {
  readonly data: T | null;
  readonly error: Refusal | null;
  readonly loading: boolean;
  /** `data` is an earlier answer, kept on screen because the latest ask went unanswered (`error` says why). */
  readonly stale: boolean;
}

/**
 * A question the node did not answer in time, or whose answer it shed from a slow socket's bounded queue
 * (answered `answer_dropped`), is asked again this many times, after 1, 2, 4 s: not worth an empty room
 * until the next frame.
 */
const RETRIES = 3;
const RETRY_MIN_MS = 1_000;

/**
 * Unanswered rather than refused (no answer in time, the link or the node down, a node draining): the last
 * answer stays on screen, marked stale.
 */
const unanswered = new Set(['timeout', 'disconnected', 'draining', 'answer_dropped']);
/** Asked again after a pause: no answer in time, or one the node shed from a slow socket's queue. */
const retried = new Set(['timeout', 'answer_dropped']);

function refusalOf(e: unknown): Refusal {
  const err = e as Error & { code?: string; kind?: string; hint?: string };
  const code = err.code ?? 'failed';
  return { code, kind: err.kind ?? code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => window.setTimeout(resolve, ms));

/**
 * A frame that moves a room (an event, a configuration push) asks its question again at most once per this
 * many ms: a burst of 300 events is two asks (the first at once, one after the burst), not 300.
 */
const REASK_MS = 1_000;

/**
 * One question (what, params, snapshot) and its re-asks: at most one in flight, and a re-ask wanted while
 * one is in flight, or within REASK_MS of the last, is made once, as soon as both allow (leading and
 * trailing throttle).
 */
class Asker {
  private inFlight = false;
  private wanted = false;
  private lastAt = Number.NEGATIVE_INFINITY;
  private timer: number | null = null;
  private closed = false;

  constructor(private readonly run: () => Promise<void>) {}

  ask(): void {
    if (this.closed) return;
    this.wanted = true;
    this.next();
  }

  private next(): void {
    if (this.closed || !this.wanted || this.inFlight || this.timer !== null) return;
    const wait = this.lastAt + REASK_MS - Date.now();
    if (wait > 0) {
      this.timer = window.setTimeout(() => {
        this.timer = null;
        this.next();
      }, wait);
      return;
    }
    this.wanted = false;
    this.inFlight = true;
    this.lastAt = Date.now();
    void this.run().finally(() => {
      this.inFlight = false;
      this.next();
    });
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
  }
}

/**
 * Asks a question, at once when `what` or `params` change and on every snapshot (a reconnect, a token
 * entered or forgotten), so an answer lost with the link or refused for want of a token comes back by
 * itself. When `again` changes (pass a tick from the live state to follow the stream) it asks again
 * through the throttle above. The previous answer stays on screen while the next one is on its way, and
 * when it goes unanswered (marked stale) while the question is asked again.
 */
export function useQuestion<T>(what: string | null, params: Params = {}, again: unknown = 0): Asked<T> {
  const connection = useConnection();
  const epoch = useLiveSlice((s) => s.epoch);
  // Not before the link's first answer: a question asked while the socket opens goes over HTTP, and the
  // snapshot that follows asks it again on the socket. A link that ends without a snapshot (the node down or
  // refusing reads) leaves `connecting`, and the question is asked then, to say why it is unanswered.
  const waiting = useLiveSlice((s) => s.epoch === 0 && s.link === 'connecting');
  const key = JSON.stringify(params);
  const [asked, setAsked] = useState<Asked<T>>({
    data: null,
    error: null,
    loading: what !== null,
    stale: false,
  });
  const asker = useRef<Asker | null>(null);
  // `again` as of this render, and as of the last ask it was compared with.
  const againNow = useRef(again);
  againNow.current = again;
  const againSeen = useRef(again);
  useEffect(() => {
    if (what === null || waiting) return undefined;
    let live = true;
    const current = new Asker(async () => {
      setAsked((prev) => ({ ...prev, loading: true }));
      for (let attempt = 0; live; attempt++) {
        try {
          const data = await connection.ask(what, params);
          if (live) setAsked({ data: data as T, error: null, loading: false, stale: false });
          return;
        } catch (e) {
          const error = refusalOf(e);
          const again = retried.has(error.code) && attempt < RETRIES;
          if (live)
            setAsked((prev) =>
              unanswered.has(error.code) && prev.data !== null
                ? { data: prev.data, error, loading: again, stale: true }
                : { data: null, error, loading: again, stale: false },
            );
          if (!again) return;
          await pause(RETRY_MIN_MS * 2 ** attempt);
        }
      }
    });
    asker.current = current;
    // This first ask already reads what `again` points at.
    againSeen.current = againNow.current;
    current.ask();
    return () => {
      live = false;
      current.close();
    };
  }, [connection, what, key, epoch, waiting]);
  useEffect(() => {
    if (Object.is(againSeen.current, again)) return;
    againSeen.current = again;
    asker.current?.ask();
  }, [again]);
  return asked;
}
