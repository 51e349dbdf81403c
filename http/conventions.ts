/**
 * The gateway's conventions on every answer, whoever built it (ops/http.md): a 401 carries a
 * `WWW-Authenticate` challenge (RFC 9110 11.6.1; webhook receivers excepted, see `RouteDef.bearerChallenge`),
 * a 503 or 429 a `Retry-After`. A header the answer sets itself is kept.
 */
import { bearerChallenge } from './guard.js';
import type { CompiledRoute } from './router.js';
import type { ApiReply, ApiRequest } from './types.js';

/** What the conventions need to know of a request: whether a 401 is challenged, and whether a credential was sent. */
export interface Seen {
  /** Whether a 401 gets the Bearer challenge (`RouteDef.bearerChallenge`). */
  readonly challenged: boolean;
  /** A credential was sent (`Authorization`, or the route's `{token}` path segment). */
  readonly presented: boolean;
}

/** A request no route was matched for (the gateway's own refusals). */
export const unseen: Seen = { challenged: true, presented: false };

export const seenOf = (req: Pick<ApiRequest, 'headers' | 'params'>, route: CompiledRoute): Seen => ({
  challenged: route.def.bearerChallenge ?? route.kind !== 'webhook',
  presented: req.headers['authorization'] !== undefined || req.params['token'] !== undefined,
});

/** How long a 503 or 429 that names no wait asks the client to wait (the drain's figure). */
const RETRY_AFTER_SECONDS = '30';

/** `reply` with the headers the conventions add; the same object when none is missing. */
export function conventional(reply: ApiReply, seen: Seen): ApiReply {
  const { status } = reply;
  if (status !== 401 && status !== 503 && status !== 429) return reply;
  const has = (name: string): boolean =>
    Object.keys(reply.headers ?? {}).some((k) => k.toLowerCase() === name);
  if (status === 401 && seen.challenged && !has('www-authenticate')) {
    const challenge = bearerChallenge(seen.presented ? 'invalid_token' : null);
    return { ...reply, headers: { ...reply.headers, 'WWW-Authenticate': challenge } };
  }
  if (status !== 401 && !has('retry-after'))
    return { ...reply, headers: { ...reply.headers, 'Retry-After': RETRY_AFTER_SECONDS } };
  return reply;
}

/** A routed request's refusal in its route's own shape (`RouteDef.refusalIn`); any other answer as it is. */
export function inRouteShape(
  route: CompiledRoute,
  reply: ApiReply,
  headers: Readonly<Record<string, string>>,
): ApiReply {
  return reply.status >= 400 && route.def.refusalIn ? route.def.refusalIn(reply, headers) : reply;
}
