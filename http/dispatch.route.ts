/**
 * Which route serves a request, and whether the guard lets it through: the listener split (public paths,
 * decided before the guard), the guard, then 404 / 405. Every refusal is answered here.
 */
import type { HttpRequest, HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { accessFor, isNeverGuarded, refusal, soleAuthorization } from './guard.js';
import type { WriteContext } from './respond.js';
import { isPublicPath, type CompiledRoute } from './router.js';
import type { Actor, ApiReply } from './types.js';
import { answerNow, type GatewayCore, type ListenerState, type RequestLine } from './dispatch.core.js';
import { noRoute, otherMethod } from './dispatch.refusals.js';
import { STREAM_PATH } from './ws/stream-path.js';
import { offeredProtocols } from './ws/stream-protocols.js';

/** A request a route serves and the guard let through. */
export interface Routed {
  readonly route: CompiledRoute;
  readonly params: Record<string, string>;
  readonly actor: Actor | null;
}

const defaultAccess = (route: CompiledRoute): 'open' | undefined =>
  route.kind === 'api' ? undefined : 'open';

/** The route and the guard's verdict; null when the request was refused (the refusal is answered). */
export function routeRequest(
  core: GatewayCore,
  l: ListenerState,
  res: HttpResponse,
  req: HttpRequest,
  base: WriteContext,
  line: RequestLine,
): Routed | null {
  const { method, path } = line;
  const refuse = (reply: ApiReply): null => {
    answerNow(core, res, base, reply, line);
    return null;
  };

  // 2. Listener split, before the guard.
  const match = l.table.match(method, path);
  const unserved = !match.found && match.allow.length === 0;
  if (l.name === 'public' && unserved) return refuse(noRoute(method, path));
  if (l.movedToPublic !== null && unserved) {
    const elsewhere = l.movedToPublic.match(method, path);
    if ((l.publicPrefixesMoved && isPublicPath(path)) || elsewhere.found || elsewhere.allow.length > 0) {
      const hint = 'This path is served only on the public listener (`api.public.port`).';
      return refuse(noRoute(method, path, hint));
    }
  }

  // A served path asked under another method counts under its pattern (its 405 or 401): only a path no
  // route serves is `unmatched` in the metrics.
  const route = match.found ? match.route : null;
  line.route = match.found ? match.route.pattern : (match.pattern ?? null);

  // 3. Guard. A path served only unguarded (the dashboard shell, its assets) has nothing for the guard to
  // keep under another method: that is the spec's 405, not a 401 for a token it would never need.
  if (!match.found && match.allow.length > 0 && match.allow.every((m) => isNeverGuarded(m, path)))
    return refuse(otherMethod(method, path, match.allow));
  const access = accessFor(method, path, route ? (route.def.access ?? defaultAccess(route)) : undefined);
  // The stream's own channels, read as its upgrade reads them, so a GET without one answers a credential alike.
  const stream = path === STREAM_PATH;
  const queryTokens = stream ? new URLSearchParams(req.getQuery()).getAll('token') : [];
  const protocolTokens = stream ? offeredProtocols(req).tokens : [];
  // Every Authorization header is read (only where a credential counts): a second one is refused, not ignored.
  const authorization = access === 'open' ? '' : soleAuthorization(req);
  const verdict = core.guard.check(access, line.route, authorization, queryTokens, protocolTokens);
  if (!verdict.ok) return refuse(refusal(verdict.reason));
  line.operator = verdict.actor?.id ?? null;

  // 4. Unserved path, or another method.
  if (!match.found) {
    if (match.allow.length === 0) return refuse(noRoute(method, path, match.hint));
    return refuse(otherMethod(method, path, match.allow));
  }
  return { route: match.route, params: match.params, actor: verdict.actor };
}
