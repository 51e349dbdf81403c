/**
 * One request through the gateway, in order:
 * 1. probes (api listener only)  2. listener split (public paths, decided before the guard)  3. guard
 * 4. 404 / 405  5. drain and unconfigured refusals  6. body within limits  7. handler  8. answer.
 * Steps 1–6 run synchronously: the uWS request object dies when this callback returns.
 */
import type { HttpRequest, HttpResponse } from '@trufflesuite/uws-js-unofficial';
import type { Logger } from 'pino';
import { ApiError, codelessReply, errorReply } from './api-error.js';
import { hasBody, readBody } from './body.js';
import { CSP_NONE, cspFor } from './headers.js';
import { accessFor, isWrite, refusal } from './guard.js';
import type { Guard } from './guard.js';
import { Exchange, prepare, writeAnswer } from './respond.js';
import type { ExchangeSet, WriteContext } from './respond.js';
import { isPublicPath } from './router.js';
import type { CompiledRoute, RouteTable } from './router.js';
import type { Actor, ApiReply, ApiRequest, GatewayLimits, ProbeSource } from './types.js';

/** One bound listener and what it serves. */
export interface ListenerState extends ExchangeSet {
  readonly name: 'api' | 'public';
  readonly table: RouteTable;
  /** On `api.port` when a public listener exists: its routes, to answer them with the `api.public` hint. */
  readonly movedToPublic: RouteTable | null;
  readonly serveProbes: boolean;
}

/** What every listener shares. */
export interface GatewayCore {
  readonly guard: Guard;
  readonly probes: ProbeSource;
  readonly limits: GatewayLimits;
  readonly log: Logger;
  isDraining(): boolean;
}

const probePaths = new Map<string, 'health' | 'ready'>([
  ['/health', 'health'],
  ['/health/', 'health'],
  ['/ready', 'ready'],
  ['/ready/', 'ready'],
]);

/** Paths carrying a per-run token (`/mcp/{token}`, `/otlp/{token}/…`) are logged without it. */
export function safePath(path: string): string {
  return path.replace(/^\/(mcp|otlp)\/[^/]+/, '/$1/[token]');
}

const defaultAccess = (route: CompiledRoute): 'open' | undefined =>
  route.kind === 'api' ? undefined : 'open';

interface RequestLine {
  method: string;
  path: string;
  route: string | null;
  operator: string | null;
}

/** The line is built only when its level is on: probes and refusals are the hot path. */
function logRequest(core: GatewayCore, level: 'info' | 'debug', line: RequestLine, status: number): void {
  if (core.log.isLevelEnabled(level))
    core.log[level]({ ...line, path: safePath(line.path), status }, 'request');
}

/** Answers synchronously, inside the uWS callback (already corked). */
function answerNow(
  core: GatewayCore,
  res: HttpResponse,
  ctx: WriteContext,
  reply: ApiReply,
  log: RequestLine,
): void {
  writeAnswer(res, ctx, prepare(reply));
  logRequest(core, 'info', log, reply.status);
}

const failedReply = codelessReply(
  500,
  'The request failed inside the node; its outcome is unknown.',
  'Read the state back before retrying; the node log has a handler_failed line for this route.',
);

/**
 * The uWS callback. A throw escaping a uWS callback would end the process, so everything is caught; the
 * synchronous steps prepare each answer before writing it, so a throw means nothing was written yet.
 */
export function onRequest(core: GatewayCore, l: ListenerState, res: HttpResponse, req: HttpRequest): void {
  try {
    dispatch(core, l, res, req);
  } catch (err) {
    const path = req.getUrl();
    const line = { route: null, operator: null, method: req.getCaseSensitiveMethod(), path: safePath(path) };
    core.log.error({ ...line, event: 'handler_failed', err }, 'handler_failed');
    writeAnswer(res, { head: false, path, csp: CSP_NONE, close: true }, prepare(failedReply));
  }
}

function dispatch(core: GatewayCore, l: ListenerState, res: HttpResponse, req: HttpRequest): void {
  const method = req.getCaseSensitiveMethod();
  const path = req.getUrl();
  const head = method === 'HEAD';
  const draining = core.isDraining();
  const base: WriteContext = { head, path, csp: CSP_NONE, close: draining };
  const line: RequestLine = { method, path, route: null, operator: null };

  // 1. Probes: never guarded, never public, answered whatever the node's state.
  const probe = l.serveProbes ? probePaths.get(path) : undefined;
  if (probe !== undefined) {
    line.route = `/${probe}`;
    if (method !== 'GET' && !head) {
      const reply = errorReply('method_not_allowed', {
        detail: `${method} ${path} is not served; use GET.`,
        headers: { Allow: 'GET, HEAD' },
      });
      return answerNow(core, res, base, reply, line);
    }
    let reply: ApiReply;
    if (probe === 'health') reply = { status: 200, body: core.probes.health() };
    else {
      const ready = core.probes.ready();
      reply = { status: ready.ready ? 200 : 503, body: ready };
    }
    writeAnswer(res, base, prepare(reply));
    logRequest(core, 'debug', line, reply.status);
    return;
  }

  // 2. Listener split, before the guard.
  const match = l.table.match(method, path);
  const unserved = !match.found && match.allow.length === 0;
  if (l.name === 'public' && unserved) return answerNow(core, res, base, noRoute(method, path), line);
  if (l.movedToPublic !== null && unserved) {
    const elsewhere = l.movedToPublic.match(method, path);
    if (isPublicPath(path) || elsewhere.found || elsewhere.allow.length > 0) {
      const hint = 'This path is served only on the public listener (`api.public.port`).';
      return answerNow(core, res, base, noRoute(method, path, hint), line);
    }
  }

  // 3. Guard.
  const route = match.found ? match.route : null;
  line.route = route?.pattern ?? null;
  const access = accessFor(method, path, route ? (route.def.access ?? defaultAccess(route)) : undefined);
  const queryToken = path === '/ws/stream' ? new URLSearchParams(req.getQuery()).get('token') : null;
  const verdict = core.guard.check(access, line.route, req.getHeader('authorization'), queryToken);
  if (!verdict.ok) return answerNow(core, res, base, refusal(verdict.reason), line);
  line.operator = verdict.actor?.id ?? null;

  // 4. Unserved path, or another method.
  if (!match.found) {
    if (match.allow.length === 0) return answerNow(core, res, base, noRoute(method, path), line);
    const reply = errorReply('method_not_allowed', {
      detail: `${method} ${path} is not served; it is served under ${match.allow.join(', ')}.`,
      headers: { Allow: match.allow.join(', ') },
    });
    return answerNow(core, res, base, reply, line);
  }
  const served = match.route;
  const ctx: WriteContext = { ...base, csp: cspFor(served.kind, served.def.cspHashes) };

  // 5. Refusals that need no body.
  const delivery = served.kind === 'webhook' || served.kind === 'landing';
  if (draining && (isWrite(method) || delivery)) {
    return answerNow(core, res, ctx, errorReply('draining'), line);
  }
  if (served.kind === 'webhook' && served.def.servesUnconfigured !== true && !core.probes.configured()) {
    const reply = codelessReply(
      503,
      'This node has no active configuration yet, so it cannot verify or route deliveries.',
      'Push the first revision; the sender will retry.',
      { 'Retry-After': '30' },
    );
    return answerNow(core, res, ctx, reply, line);
  }

  // 6. Copy what the handler needs, then read the body.
  // No prototype: a header named `__proto__` or `constructor` stays a plain entry.
  const headers = Object.create(null) as Record<string, string>;
  req.forEach((k, v) => {
    headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
  });
  const request = {
    method,
    path,
    params: match.params,
    query: new URLSearchParams(req.getQuery()),
    headers,
    actor: verdict.actor,
    remoteAddress: Buffer.from(res.getRemoteAddressAsText()).toString(),
    route: served.pattern,
  };
  // 6a. The route's own checks that need no body (spec: a secret name is checked before the body).
  if (served.def.beforeBody) {
    try {
      served.def.beforeBody(request);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const unread = hasBody(headers['content-length'] ?? '', headers['transfer-encoding'] ?? '');
      return answerNow(core, res, { ...ctx, close: ctx.close || unread }, err.toReply(), line);
    }
  }
  const exchange = new Exchange(res, l);
  const log = core.log.child({ route: served.pattern, operator: line.operator });
  serve(core, res, exchange, served, request, ctx, log).catch((err: unknown) => {
    log.error({ event: 'handler_failed', err }, 'handler_failed');
    exchange.send(ctx, failedReply);
  });
}

function noRoute(method: string, path: string, hint?: string): ApiReply {
  return errorReply('no_route', {
    detail: `No route serves ${method} ${path}.`,
    ...(hint ? { hint } : {}),
  });
}

type RequestFacts = Omit<ApiRequest, 'body' | 'log' | 'actor'> & { actor: Actor | null };

async function serve(
  core: GatewayCore,
  res: HttpResponse,
  exchange: Exchange,
  route: CompiledRoute,
  facts: RequestFacts,
  ctx: WriteContext,
  log: Logger,
): Promise<void> {
  const fields = { method: facts.method, path: safePath(facts.path) };
  const limits = core.limits;
  let body: Buffer = Buffer.alloc(0);
  if (hasBody(facts.headers['content-length'] ?? '', facts.headers['transfer-encoding'] ?? '')) {
    const length = Number(facts.headers['content-length']);
    const declared = facts.headers['transfer-encoding'] || !Number.isSafeInteger(length) ? null : length;
    const maxBytes =
      route.def.maxBodyBytes ??
      (route.kind === 'webhook' ? limits.webhookBodyMaxBytes : limits.apiBodyMaxBytes);
    const result =
      declared !== null && declared > maxBytes
        ? ({ ok: false, reason: 'too_large', received: 0, idleMs: 0 } as const)
        : await readBody(res, exchange, {
            contentLength: declared,
            maxBytes,
            timeoutMs: limits.bodyTimeoutMs,
          });
    if (!result.ok) {
      if (result.reason === 'aborted') {
        log.warn(
          {
            ...fields,
            event: 'client_disconnected',
            phase: 'body',
            received: result.received,
            idle_ms: result.idleMs,
          },
          'client_disconnected',
        );
        return;
      }
      const event = route.kind === 'webhook' ? 'webhook_body_unreadable' : 'body_unreadable';
      log.warn(
        { ...fields, event, reason: result.reason, received: result.received, max_bytes: maxBytes },
        event,
      );
      const reply =
        result.reason === 'too_large' && route.kind === 'webhook'
          ? errorReply('body_too_large', {
              detail: `The delivery is larger than this route accepts (${maxBytes} bytes).`,
              extra: { max_bytes: maxBytes },
            })
          : result.reason === 'too_large'
            ? errorReply('unreadable_body', {
                detail: `The body is larger than this route accepts (${maxBytes} bytes).`,
                extra: { max_bytes: maxBytes },
              })
            : errorReply('unreadable_body', {
                detail: `The body was not delivered within ${limits.bodyTimeoutMs} ms.`,
              });
      // The rest of the body is never read: close the connection behind the answer.
      exchange.send({ ...ctx, close: true }, reply);
      log.info({ ...fields, status: reply.status }, 'request');
      return;
    }
    body = result.body;
  }
  if (exchange.aborted) return;
  // A client leaving while its handler runs is logged at once; the handler's answer is then dropped.
  exchange.onAbort = () =>
    log.warn({ ...fields, event: 'client_disconnected', phase: 'handler' }, 'client_disconnected');

  let reply: ApiReply;
  try {
    reply = await route.def.handler({ ...facts, body, log });
  } catch (err) {
    if (err instanceof ApiError) reply = err.toReply();
    else {
      log.error({ ...fields, event: 'handler_failed', err }, 'handler_failed');
      reply = failedReply;
    }
  }
  const ms = Math.round(performance.now() - exchange.startedAt);
  let sent: boolean;
  try {
    sent = exchange.send({ ...ctx, close: ctx.close || core.isDraining() }, reply);
  } catch (err) {
    // The reply could not be encoded (nothing was written yet).
    log.error({ ...fields, event: 'handler_failed', err }, 'handler_failed');
    [reply, sent] = [failedReply, exchange.send(ctx, failedReply)];
  }
  if (sent) log.info({ ...fields, status: reply.status, ms }, 'request');
  else
    log.info({ ...fields, event: 'answer_dropped', status: reply.status, ms }, 'answer dropped: client gone');
}
