/**
 * The guard (spec "Authentication" 1–6): who may call what, and the bearer check.
 * Tokens are compared as SHA-256 digests (fixed length, so `timingSafeEqual` never throws) against every
 * configured token without stopping at the first match.
 */
import * as nodeCrypto from 'node:crypto';
import type { Logger } from 'pino';
import { ApiError, errorReply } from './api-error.js';
import { ReservedActor, type ErrorBody } from '../schema/index.js';
import type { Access, Actor, ApiReply, AuthSettings } from './types.js';

const alwaysGuardedExact = new Set([
  '/config',
  '/secrets',
  '/setup',
  '/operator',
  '/fleet',
  '/metrics',
  '/access',
  '/credential-pool',
  '/backups',
  '/mcp-servers',
]);
const alwaysGuardedPrefixes = [...[...alwaysGuardedExact].map((p) => `${p}/`), '/work/retention'];
const neverGuardedExact = new Set(['/health', '/health/', '/ready', '/ready/']);
const neverGuardedPrefixes = ['/webhooks/', '/otlp/', '/mcp/'];
const dashboardExact = new Set(['/', '/dashboard', '/dashboard/', '/favicon.ico']);

/**
 * RFC 9110's safe methods (9.2.1) read, every other method writes. OPTIONS and TRACE count as reads: they are
 * answered past the guard as a GET would be (a 204 or a 405 with `Allow`), so they reveal nothing a GET may not.
 */
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
export const isWrite = (method: string): boolean => !safeMethods.has(method);

/** Paths the spec guards always, reads included. */
export function isAlwaysGuarded(method: string, path: string): boolean {
  if (alwaysGuardedExact.has(path)) return true;
  if (method === 'POST' && path === '/backup') return true;
  return alwaysGuardedPrefixes.some((p) => path.startsWith(p));
}

/** Paths the spec never guards: probes, webhooks, telemetry, tool bridge, dashboard shell and assets. */
export function isNeverGuarded(method: string, path: string): boolean {
  if (neverGuardedExact.has(path) || neverGuardedPrefixes.some((p) => path.startsWith(p))) return true;
  return !isWrite(method) && (dashboardExact.has(path) || path.startsWith('/static/'));
}

/** The access a request needs: the spec's path rules first, then the route's own, then the method. */
export function accessFor(method: string, path: string, declared?: Access): Access {
  if (isAlwaysGuarded(method, path)) return 'guarded';
  if (isNeverGuarded(method, path)) return 'open';
  if (declared !== undefined) return declared === 'read' && isWrite(method) ? 'write' : declared;
  return isWrite(method) ? 'write' : 'read';
}

export const anonymousActor: Actor = Object.freeze({ id: ReservedActor.Anonymous, kind: 'anonymous' });

type Refused = 'missing' | 'wrong' | 'repeated' | 'repeated_query' | 'repeated_protocol' | 'ambiguous';
export type GuardOutcome = { ok: true; actor: Actor | null } | { ok: false; reason: Refused };

/**
 * A request's `Authorization`: '' when absent, its value when sent once, null when sent more than once.
 * uWS `getHeader` sees only the first, so a second one (a proxy's, a client's mistake) would go unread.
 */
export function soleAuthorization(req: {
  forEach(cb: (key: string, value: string) => void): void;
}): string | null {
  let value = '';
  let count = 0;
  req.forEach((key, v) => {
    if (key !== 'authorization') return;
    count += 1;
    value = v;
  });
  return count > 1 ? null : value;
}

// The one-shot `hash` (Node 20.12 and later) costs a third less than a Hash object per request; engines allow 20.9.
const oneShot = (nodeCrypto as Partial<typeof nodeCrypto>).hash;
const digest = (value: string): Buffer =>
  oneShot
    ? oneShot('sha256', value, 'buffer')
    : nodeCrypto.createHash('sha256').update(value, 'utf8').digest();

export class Guard {
  private readonly tokens: ReadonlyArray<{ id: string; digest: Buffer }>;

  constructor(
    readonly settings: AuthSettings,
    private readonly log: Logger,
  ) {
    // Compared trimmed, as a presented bearer is: a value read from an env file or a mounted secret
    // often ends in a newline no client can send. An empty value never authenticates: it is dropped
    // here, and the Tier A loader refuses it earlier.
    this.tokens = settings.tokens
      .map((t) => ({ id: t.id, token: t.token.trim() }))
      .filter((t) => t.token !== '')
      .map((t) => ({ id: t.id, digest: digest(t.token) }));
    if (settings.disabled) {
      log.warn(
        { event: 'auth_disabled' },
        'api.auth.disabled is true: the guard is off; never use this in production',
      );
    }
    const dropped = settings.tokens.length - this.tokens.length;
    if (dropped > 0)
      log.warn({ event: 'auth_empty_token', dropped }, 'tokens with an empty value are ignored');
  }

  /** The operator id whose token equals `candidate`, or null. */
  verify(candidate: string): string | null {
    const d = digest(candidate);
    let matched: string | null = null;
    for (const t of this.tokens) {
      // No early exit: every configured token is compared.
      if (nodeCrypto.timingSafeEqual(d, t.digest) && matched === null) matched = t.id;
    }
    return matched;
  }

  /**
   * Who a token offered after the request names (a socket's query frame): its operator, or anonymous while
   * the guard is off; null when it names no one, logged as a refused bearer is (spec "Authentication" 1).
   */
  admit(candidate: string, route: string): Actor | null {
    if (this.settings.disabled) return anonymousActor;
    const id = candidate === '' ? null : this.verify(candidate);
    if (id === null) {
      this.refused(route, 'wrong');
      return null;
    }
    this.log.debug({ event: 'auth_accepted', route, operator: id }, 'credential accepted');
    return { id, kind: 'operator' };
  }

  /** The WARNING line of a refusal: never the candidate. */
  private refused(route: string | null, reason: Refused): void {
    const msg = reason === 'missing' ? 'credential missing' : 'credential refused';
    this.log.warn({ event: 'auth_refused', route, operator: null, reason }, msg);
  }

  /**
   * Decide a request. `authorization` is the header ('' when absent, null when sent more than once:
   * `soleAuthorization`); `queryTokens` are the values of `?token=` and `protocolTokens` the tokens its
   * subprotocols carry, only passed for `/ws/stream`, the one route where those count (two `?token=`, or two
   * subprotocol tokens, are refused as two headers are, never one picked). Every token present must be accepted (spec
   * "Authentication" 4: a present wrong token is refused, whichever channel carries it), and all must name
   * one operator: right tokens of two are refused as two `?token=` are, never one picked for the socket.
   */
  check(
    access: Access,
    route: string | null,
    authorization: string | null,
    queryTokens: readonly string[] = [],
    protocolTokens: readonly string[] = [],
  ): GuardOutcome {
    if (access === 'open') return { ok: true, actor: this.settings.disabled ? anonymousActor : null };
    if (this.settings.disabled) return { ok: true, actor: anonymousActor };
    if (authorization === null) {
      this.refused(route, 'repeated');
      return { ok: false, reason: 'repeated' };
    }
    if (queryTokens.length > 1) {
      this.refused(route, 'repeated_query');
      return { ok: false, reason: 'repeated_query' };
    }
    if (protocolTokens.length > 1) {
      this.refused(route, 'repeated_protocol');
      return { ok: false, reason: 'repeated_protocol' };
    }
    const candidates: string[] = [];
    if (authorization !== '') {
      const m = /^bearer[ \t]+(.*)$/i.exec(authorization);
      candidates.push(m ? m[1]!.trim() : '');
    }
    candidates.push(...protocolTokens);
    candidates.push(...queryTokens);
    if (candidates.length > 0) {
      const ids = candidates.map((c) => (c === '' ? null : this.verify(c)));
      const id = ids[0];
      if (id === null || id === undefined || ids.includes(null)) {
        this.refused(route, 'wrong');
        return { ok: false, reason: 'wrong' };
      }
      if (ids.some((other) => other !== id)) {
        this.refused(route, 'ambiguous');
        return { ok: false, reason: 'ambiguous' };
      }
      this.log.debug({ event: 'auth_accepted', route, operator: id }, 'credential accepted');
      return { ok: true, actor: { id, kind: 'operator' } };
    }
    if (access === 'read' && this.settings.allowAnonymousRead) return { ok: true, actor: null };
    this.refused(route, 'missing');
    return { ok: false, reason: 'missing' };
  }
}

const refusalDetail: Record<Refused, string> = {
  missing: 'This request needs an operator token.',
  wrong: 'The credential is not accepted.',
  repeated: 'The request carries more than one Authorization header; send one.',
  repeated_query: 'The request carries more than one `token` query parameter; send one.',
  repeated_protocol: 'The request offers more than one `svc.token.` subprotocol; send one.',
  ambiguous: "The request carries tokens of more than one operator; send one operator's token.",
};

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 9110 11.6.1 requires one), in RFC 6750's form: no error
 * when no credential was sent (its 3.1), `invalid_token` for one refused, `invalid_request` for two at once.
 */
export function bearerChallenge(error: 'invalid_token' | 'invalid_request' | null): string {
  return error === null ? 'Bearer realm="svc"' : `Bearer realm="svc", error="${error}"`;
}

const refusalError = {
  missing: null,
  wrong: 'invalid_token',
  repeated: 'invalid_request',
  repeated_query: 'invalid_request',
  repeated_protocol: 'invalid_request',
  ambiguous: 'invalid_request',
} as const satisfies Record<Refused, 'invalid_token' | 'invalid_request' | null>;

/** The 401 of a refused credential (its body typed: the socket's query channel answers with its fields). */
export function refusal(reason: Refused): ApiReply & { readonly body: ErrorBody } {
  return errorReply('invalid_token', {
    detail: refusalDetail[reason],
    headers: { 'WWW-Authenticate': bearerChallenge(refusalError[reason]) },
  });
}

/**
 * Managed document (spec Authentication 6, write rule 10): throws 403 `config_managed` unless the actor's
 * token id is in `company_writers`. Call it first in each write route it covers, before reading anything.
 */
export function assertCompanyWriter(settings: AuthSettings, actor: Actor | null, why?: string): void {
  const writers = settings.companyWriters;
  if (writers === undefined) return;
  if (actor !== null && actor.kind === 'operator' && writers.includes(actor.id)) return;
  const detail = `The company document is managed by ${writers.join(', ') || 'no token'}; this credential may not change it.`;
  throw new ApiError('config_managed', {
    extra: { managed_by: [...writers] },
    detail: why ? `${detail} ${why}` : detail,
  });
}
