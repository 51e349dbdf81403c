/**
 * Which events a transport takes and what becomes of an attempt (pure): its settings with `${VAR}`
 * references resolved, the events it takes, what an answer means, and how long a failed attempt waits
 * before the next. What each type sends is in requests.ts (HTTP), mail.ts (SMTP) and sms.ts; ops/notifications.md
 * describes the wire formats.
 */
import {
  DefaultTransportEvents,
  HttpSchemes,
  PagerEventsUrl,
  SmsApiUrl,
  SmtpSchemes,
  usableUrl,
  type EventRecord,
  type OutboundTransport,
} from '../../schema/index.js';

/** Attempts per event before it is given up (`notification_failed`): about 4 minutes of waits, plus the attempts. */
export const MAX_ATTEMPTS = 10;
/** An event older than this when its turn comes is not sent (a transport re-added after a long absence). */
export const STALE_AFTER_MS = 3_600_000;
export const DEFAULT_TIMEOUT_MS = 10_000;

interface Selection {
  readonly name: string;
  readonly events: ReadonlySet<string>;
  readonly seats: ReadonlySet<string> | null;
  readonly timeoutMs: number;
}

/** A transport with its `${VAR}` references resolved, as the host runs it. */
export type ResolvedTransport = Selection &
  (
    | { readonly type: 'webhook'; readonly url: string; readonly secret: string | null }
    | { readonly type: 'chat'; readonly url: string }
    | { readonly type: 'pager'; readonly url: string; readonly routingKey: string }
    | {
        readonly type: 'email';
        readonly url: string;
        readonly username: string | null;
        readonly password: string | null;
        readonly from: string;
        readonly to: readonly string[];
      }
    | {
        readonly type: 'sms';
        readonly url: string;
        readonly accountSid: string;
        readonly authToken: string;
        readonly from: string;
        readonly to: readonly string[];
      }
  );

export function resolveTransport(
  name: string,
  t: OutboundTransport,
  resolve: (text: string) => string,
): ResolvedTransport {
  const selection: Selection = {
    name,
    events: new Set(t.events ?? DefaultTransportEvents),
    seats: t.seats === undefined ? null : new Set(t.seats),
    timeoutMs: (t.timeout_seconds ?? DEFAULT_TIMEOUT_MS / 1000) * 1000,
  };
  const optional = (text: string | undefined): string | null =>
    text === undefined ? null : resolve(text) || null;
  switch (t.type) {
    case 'webhook':
      return { ...selection, type: t.type, url: resolve(t.url), secret: optional(t.secret) };
    case 'chat':
      return { ...selection, type: t.type, url: resolve(t.url) };
    case 'pager':
      return { ...selection, type: t.type, url: resolve(t.url ?? PagerEventsUrl), routingKey: resolve(t.routing_key) }; // prettier-ignore
    case 'email':
      return {
        ...selection,
        type: t.type,
        url: resolve(t.url),
        username: optional(t.username),
        password: optional(t.password),
        from: t.from,
        to: t.to,
      };
    case 'sms':
      return {
        ...selection,
        type: t.type,
        url: resolve(t.url ?? SmsApiUrl),
        accountSid: resolve(t.account_sid),
        authToken: resolve(t.auth_token),
        from: t.from,
        to: t.to,
      };
  }
}

/**
 * Why a resolved transport cannot send (its references resolved to nothing usable), or null when it can.
 * Never quotes the value: it may be a credential.
 */
export function unusable(t: ResolvedTransport): string | null {
  if (t.type === 'email')
    return usableUrl(t.url, SmtpSchemes) ? null : 'its url does not resolve to an smtp(s) URL';
  if (!usableUrl(t.url, HttpSchemes)) return 'its url does not resolve to an http(s) URL';
  if (t.type === 'pager' && t.routingKey === '') return 'its routing_key resolves to nothing';
  if (t.type === 'sms' && !/^AC[0-9a-fA-F]{32}$/.test(t.accountSid))
    return 'its account_sid does not resolve to an account SID';
  if (t.type === 'sms' && t.authToken === '') return 'its auth_token resolves to nothing';
  return null;
}

/** Whether the transport sends this event: its type is chosen and, when seats are named, it is one of theirs. */
export function takes(t: ResolvedTransport, event: EventRecord): boolean {
  if (!t.events.has(event.type)) return false;
  return t.seats === null || (event.agent_id !== undefined && t.seats.has(event.agent_id));
}

export type Verdict = 'sent' | 'retry' | 'refused';

/** What an HTTP answer means: sent, worth another attempt (5xx, 408, 429, no answer), or refused for good. */
export function verdictOf(status: number | null): Verdict {
  if (status !== null && status >= 200 && status < 300) return 'sent';
  if (status === null || status >= 500 || status === 408 || status === 429) return 'retry';
  return 'refused';
}

/** What an SMTP reply means (RFC 5321): 2yz sent, 4yz transient, 5yz permanent; no reply is worth a retry. */
export function smtpVerdictOf(code: number | null): Verdict {
  if (code !== null && code >= 200 && code < 300) return 'sent';
  if (code !== null && code >= 500 && code < 600) return 'refused';
  return 'retry';
}

/**
 * An event's recipients (an `sms` transport's phones, an `email` one's mailboxes) across its attempts: those
 * settled (took it, or refused it for good) are not sent it again, and the first refusal for good is kept
 * for the verdict of the attempt that settles the last of them.
 */
export interface Recipients {
  readonly settled: Set<string>;
  refused: number | null;
}

export const newRecipients = (): Recipients => ({ settled: new Set(), refused: null });

/**
 * The verdict of one attempt at `answers` (each recipient it was for, with what its answer means): worth a
 * retry while one may yet take it; once all are settled, refused with the first refusal of any attempt, or
 * sent (with `sentStatus`).
 */
export function recipientsVerdict(
  r: Recipients,
  answers: ReadonlyArray<{ to: string; status: number | null; verdict: Verdict }>,
  sentStatus: number | null,
): { status: number | null; verdict: Verdict } {
  let retry: number | null | undefined;
  for (const { to, status, verdict } of answers) {
    if (verdict === 'retry') retry ??= status;
    else {
      r.settled.add(to);
      if (verdict === 'refused') r.refused ??= status;
    }
  }
  if (retry !== undefined) return { status: retry, verdict: 'retry' };
  return r.refused !== null
    ? { status: r.refused, verdict: 'refused' }
    : { status: sentStatus, verdict: 'sent' };
}

/** The longest wait between two attempts, whatever the backoff or the server asks. */
const MAX_WAIT_MS = 60_000;

/** The wait before attempt `next` (2, 3, ...): 1 s, doubling, at most a minute. */
export function backoffMs(next: number): number {
  return Math.min(MAX_WAIT_MS, 1000 * 2 ** Math.max(0, next - 2));
}

/**
 * How long a `Retry-After` (delta seconds or an HTTP date) asks to wait, within a minute; null when it is
 * absent or says nothing usable. A rate-limited chat hook, pager API or SMS API answers 429 with it.
 */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  // Only an HTTP date names a month; Date.parse would read `-5` or `1.5` as some year.
  const ms = /^\d+$/.test(text)
    ? Number(text) * 1000
    : /[A-Za-z]{3}/.test(text)
      ? Date.parse(text) - now
      : NaN;
  return Number.isFinite(ms) ? Math.min(MAX_WAIT_MS, Math.max(0, ms)) : null;
}
