/**
 * One request through the gateway, in order:
 * 0. framing (Content-Length conflicting or not digits)  1. probes (api listener only)  2. listener split
 * (public paths, decided before the guard)  3. guard  4. 404 / 405  5. drain and unconfigured refusals
 * 6. the route's checks before the body, then the body within limits and the listener's budget  7. handler
 * 8. answer.
 * Steps 0–6 start synchronously: the uWS request object dies when this callback returns.
 * Refusals: dispatch.refusals.ts; probes: dispatch.probes.ts; 2–4: dispatch.route.ts; 6–8: dispatch.handle.ts.
 */
import type { HttpRequest, HttpResponse } from '@trufflesuite/uws-js-unofficial';
import type { Logger } from 'pino';
import { ApiError } from './api-error.js';
import { codingFault, hasBody, lengthFault } from './body.js';
import { undeclaredParam } from './declared-params.js';
import { undeclaredPrecondition } from './declared-preconditions.js';
import { isWrite } from './guard.js';
import { inRouteShape, seenOf } from './conventions.js';
import { CSP_NONE, cspFor } from './headers.js';
import { Exchange, prepare, writeAnswer, type WriteContext } from './respond.js';
import type { ApiReply } from './types.js';
import {
  answerNow,
  failedReply,
  observe,
  safePath,
  type GatewayCore,
  type ListenerState,
  type RequestLine,
} from './dispatch.core.js';
import { serve } from './dispatch.handle.js';
import { answerProbe } from './dispatch.probes.js';
import { refusalBeforeBody, refuseFraming } from './dispatch.refusals.js';
import { routeRequest, type Routed } from './dispatch.route.js';

/**
 * The uWS callback. A throw escaping a uWS callback would end the process, so everything is caught; the
 * synchronous steps prepare each answer before writing it, so a throw means nothing was written yet.
 */
export function onRequest(core: GatewayCore, l: ListenerState, res: HttpResponse, req: HttpRequest): void {
  const startedAt = performance.now();
  // Filled in as dispatch learns the route and the operator: the failure line names what was known.
  const line: RequestLine = {
    method: req.getCaseSensitiveMethod(),
    path: req.getUrl(),
    route: null,
    operator: null,
  };
  try {
    dispatch(core, l, res, req, line);
  } catch (err) {
    core.log.error({ ...line, path: safePath(line.path), event: 'handler_failed', err }, 'handler_failed');
    writeAnswer(res, { head: false, path: line.path, csp: CSP_NONE, close: true }, prepare(failedReply));
    observe(core, line.method, line.route, failedReply.status, startedAt);
  }
}

function dispatch(
  core: GatewayCore,
  l: ListenerState,
  res: HttpResponse,
  req: HttpRequest,
  line: RequestLine,
): void {
  const { method, path } = line;
  const draining = core.isDraining();
  const base: WriteContext = { head: method === 'HEAD', path, csp: CSP_NONE, close: draining };

  // 0. Framing. A Content-Length that leaves the body's end unknown (two values that differ, or one that is
  // no length) means nothing on this connection can be trusted (RFC 9112 6.3).
  // A Transfer-Encoding other than `chunked` alone: uWS reads it as chunked anyway (RFC 9112 6.1).
  const fault =
    (req.getHeader('content-length') !== '' ? lengthFault(req) : null) ??
    (req.getHeader('transfer-encoding') !== '' ? codingFault(req) : null);
  if (fault !== null) return refuseFraming(core, l, res, base, line, fault);

  // 1. Probes: never guarded, never public, answered whatever the node's state.
  if (answerProbe(core, l, res, base, line)) return;

  // 2–4. The route, and the guard's verdict on it.
  const routed = routeRequest(core, l, res, req, base, line);
  if (routed === null) return;
  const served = routed.route;
  const ctx: WriteContext = { ...base, csp: cspFor(served.kind, served.def.cspHashes) };

  // 5. Refusals that need no body.
  const refused = refusalBeforeBody(core, served, method, draining);
  if (refused !== null) {
    const shaped = inRouteShape(served, refused, { 'content-type': req.getHeader('content-type') });
    return answerNow(core, res, ctx, shaped, line);
  }

  // 6. Copy what the handler needs, then read the body.
  handOff(core, l, res, req, ctx, line, routed);
}

/** Per gateway logger, the child loggers requests bound so far, by route and operator. */
const requestLoggers = new WeakMap<Logger, Map<string, Logger>>();
const REQUEST_LOGGERS_MAX = 1_000;

/**
 * The logger of a request: its route and operator bound. Routes and operators are few, and a child made
 * per request was a binding serialised and merged per request (the level never changes after start).
 */
function requestLogger(log: Logger, route: string, operator: string | null): Logger {
  let children = requestLoggers.get(log);
  if (children === undefined) requestLoggers.set(log, (children = new Map<string, Logger>()));
  const key = operator === null ? route : `${route}\u0000${operator}`;
  let child = children.get(key);
  if (child === undefined) {
    child = log.child({ route, operator });
    if (children.size >= REQUEST_LOGGERS_MAX) children.clear();
    children.set(key, child);
  }
  return child;
}

/** Step 6: the request copied out of uWS, the route's checks before the body, then the handler started. */
function handOff(
  core: GatewayCore,
  l: ListenerState,
  res: HttpResponse,
  req: HttpRequest,
  ctx: WriteContext,
  line: RequestLine,
  { route: served, params, actor }: Routed,
): void {
  const { method, path } = line;
  // No prototype: a header named `__proto__` or `constructor` stays a plain entry.
  const headers = Object.create(null) as Record<string, string>;
  req.forEach((k, v) => {
    // Repeated Content-Length values are identical here (step 0): merged into one, as RFC 9110 8.6 allows.
    if (headers[k] === undefined) headers[k] = v;
    else if (k !== 'content-length') headers[k] = `${headers[k]}, ${v}`;
  });
  const request = {
    method,
    path,
    params,
    query: new URLSearchParams(req.getQuery()),
    headers,
    actor,
    route: served.pattern,
  };
  const log = requestLogger(core.log, served.pattern, line.operator);
  // 6a. The route's own checks that need no body: first a query parameter it does not declare (the request
  // is not what the caller meant), then its `beforeBody` (spec: a secret name is checked before the body; a
  // webhook without its secret or its signature header is refused unread), then a precondition header it
  // does not read (after the route's own credential checks, as RFC 9110 13.2.1 orders them).
  const undeclared = undeclaredParam(served.def, request.query);
  const unchecked = (): ApiReply | undefined =>
    undeclaredPrecondition(served.def, served.kind, headers)?.toReply();
  if (undeclared !== null || served.def.beforeBody || isWrite(method)) {
    let early: ApiReply | void;
    try {
      early = undeclared?.toReply() ?? served.def.beforeBody?.(request, log) ?? unchecked();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      early = err.toReply();
    }
    if (early) {
      const unread = hasBody(headers['content-length'] ?? '', headers['transfer-encoding'] ?? '');
      return answerNow(
        core,
        res,
        { ...ctx, close: ctx.close || unread },
        inRouteShape(served, early, headers),
        line,
        seenOf(request, served),
      );
    }
  }
  const exchange = new Exchange(res, l);
  const fields = { method, path: safePath(path) };
  const answered = (status: number): void =>
    observe(core, method, served.pattern, status, exchange.startedAt);
  const hold = l.budget.hold();
  const receiving = { res, exchange, route: served, headers, ctx, log, fields, hold, answered };
  serve(core, receiving, request).catch((err: unknown) => {
    log.error({ event: 'handler_failed', err }, 'handler_failed');
    const failed = inRouteShape(served, failedReply, headers);
    if (exchange.send(ctx, failed)) answered(failed.status);
  });
}
