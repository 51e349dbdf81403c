/**
 * One request through the gateway, in order:
 * 0. framing (conflicting Content-Length)  1. probes (api listener only)  2. listener split (public paths,
 * decided before the guard)  3. guard  4. 404 / 405  5. drain and unconfigured refusals  6. the route's
 * checks before the body, then the body within limits and the listener's budget  7. handler  8. answer.
 * Steps 0–6 start synchronously: the uWS request object dies when this callback returns.
 */
import type { HttpRequest, HttpResponse } from '@trufflesuite/uws-js-unofficial';
import type { Logger } from 'pino';
import { BusError } from '../bus/index.js';
import { ApiError, codelessReply, errorReply } from './api-error.js';
import type { BodyBudget } from './body-budget.js';
import { conflictingLengths, hasBody } from './body.js';
import { receiveBody, type Receiving } from './receive.js';
import { CSP_NONE, cspFor } from './headers.js';
import { accessFor, isNeverGuarded, isWrite, refusal, soleAuthorization } from './guard.js';
import { conventional, seenOf, unseen, type Seen } from './conventions.js';
import type { Guard } from './guard.js';
import { StreamedBody } from './reply.js';
import { Exchange, prepare, writeAnswer } from './respond.js';
import type { ExchangeSet, Prepared, WriteContext } from './respond.js';
import { openStream, type OpenStream, type StreamEnd } from './respond.stream.js';
import { isPublicPath } from './router.js';
import type { CompiledRoute, RouteTable } from './router.js';
import type { Actor, ApiReply, ApiRequest, GatewayLimits, ProbeSource } from './types.js';
import type { RequestObserver } from './gateway.types.js';

/** One bound listener and what it serves. */
export interface ListenerState extends ExchangeSet {
  readonly name: 'api' | 'public';
  readonly table: RouteTable;
  /** On `api.port` when a public listener exists: its routes, to answer them with the `api.public` hint. */
  readonly movedToPublic: RouteTable | null;
  /** Whether any path under the public prefixes gets that hint (an ingress node's public listener serves them). */
  readonly publicPrefixesMoved: boolean;
  readonly serveProbes: boolean;
  /** Request-body bytes this listener holds at once (`bodyBytesInFlightMax`). */
  readonly budget: BodyBudget;
}

/** What every listener shares. */
export interface GatewayCore {
  readonly guard: Guard;
  readonly probes: ProbeSource;
  readonly limits: GatewayLimits;
  readonly log: Logger;
  isDraining(): boolean;
  readonly observer: RequestObserver | null;
}

/**
 * The health envelope is built once per tick and its encoding reused for every probe within it: a probe
 * storm costs one envelope per tick, not one per request. What the gateway itself sees change (a drain
 * starting, a request coming into flight) or the node reports fresh (the seats it holds) builds it anew at once;
 * other facts are at most a tick old.
 */
const HEALTH_TICK_MS = 100;
const healthAnswers = new WeakMap<GatewayCore, { at: number; key: string; prepared: Prepared }>();
function healthAnswer(core: GatewayCore, l: ListenerState): Prepared {
  const now = performance.now();
  const key = `${core.isDraining()}:${l.live.size}:${core.probes.fresh?.() ?? ''}`;
  const cached = healthAnswers.get(core);
  if (cached && cached.key === key && now - cached.at < HEALTH_TICK_MS) return cached.prepared;
  const prepared = prepare({ status: 200, body: core.probes.health() });
  healthAnswers.set(core, { at: now, key, prepared });
  return prepared;
}

const probeMethods = ['GET', 'HEAD'];
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

/** Tells the observer (metrics) of an answer written; `startedAt` is the request's arrival. */
function observe(
  core: GatewayCore,
  method: string,
  route: string | null,
  status: number,
  startedAt: number,
): void {
  core.observer?.answered({ method, route, status, seconds: (performance.now() - startedAt) / 1000 });
}

/** The line is built only when its level is on: probes and refusals are the hot path. */
function logRequest(core: GatewayCore, level: 'info' | 'debug', line: RequestLine, status: number): void {
  if (core.observer !== null) observe(core, line.method, line.route, status, performance.now());
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
  seen: Seen = unseen,
): void {
  const answer = conventional(reply, seen);
  writeAnswer(res, ctx, prepare(answer));
  logRequest(core, 'info', log, answer.status);
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

/**
 * 405 `method_not_allowed` for a served path asked under another method, with `Allow`; an OPTIONS asks for
 * that list and gets it (RFC 9110 9.3.7), 204 without CORS headers: the dashboard is same-origin.
 */
function otherMethod(method: string, path: string, allow: readonly string[]): ApiReply {
  if (method === 'OPTIONS') return { status: 204, headers: { Allow: allow.join(', ') } };
  return errorReply('method_not_allowed', {
    detail: `${method} ${path} is not served; it is served under ${allow.join(', ')}.`,
    headers: { Allow: allow.join(', ') },
  });
}

function dispatch(
  core: GatewayCore,
  l: ListenerState,
  res: HttpResponse,
  req: HttpRequest,
  line: RequestLine,
): void {
  const { method, path } = line;
  const head = method === 'HEAD';
  const draining = core.isDraining();
  const base: WriteContext = { head, path, csp: CSP_NONE, close: draining };

  // 0. Framing. uWS frames the body by the first Content-Length; a second, different value means the
  // sender (or a proxy) may frame it otherwise, so nothing on this connection can be trusted (RFC 9112 6.3).
  if (req.getHeader('content-length') !== '' && conflictingLengths(req))
    return refuseFraming(core, l, res, base, line);

  // 1. Probes: never guarded, never public, answered whatever the node's state.
  const probe = l.serveProbes ? probePaths.get(path) : undefined;
  if (probe !== undefined) {
    line.route = `/${probe}`;
    if (method !== 'GET' && !head)
      return answerNow(core, res, base, otherMethod(method, path, probeMethods), line);
    if (probe === 'health') {
      writeAnswer(res, base, healthAnswer(core, l));
      logRequest(core, 'debug', line, 200);
      return;
    }
    const ready = core.probes.ready();
    const reply = conventional({ status: ready.ready ? 200 : 503, body: ready }, unseen);
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
    if ((l.publicPrefixesMoved && isPublicPath(path)) || elsewhere.found || elsewhere.allow.length > 0) {
      const hint = 'This path is served only on the public listener (`api.public.port`).';
      return answerNow(core, res, base, noRoute(method, path, hint), line);
    }
  }

  // 3. Guard. A path served only unguarded (the dashboard shell, its assets) has nothing for the guard to
  // keep under another method: that is the spec's 405, not a 401 for a token it would never need.
  if (!match.found && match.allow.length > 0 && match.allow.every((m) => isNeverGuarded(m, path)))
    return answerNow(core, res, base, otherMethod(method, path, match.allow), line);
  const route = match.found ? match.route : null;
  line.route = route?.pattern ?? null;
  const access = accessFor(method, path, route ? (route.def.access ?? defaultAccess(route)) : undefined);
  const queryToken = path === '/ws/stream' ? new URLSearchParams(req.getQuery()).get('token') : null;
  // Every Authorization header is read (only where a credential counts): a second one is refused, not ignored.
  const authorization = access === 'open' ? '' : soleAuthorization(req);
  const verdict = core.guard.check(access, line.route, authorization, queryToken);
  if (!verdict.ok) return answerNow(core, res, base, refusal(verdict.reason), line);
  line.operator = verdict.actor?.id ?? null;

  // 4. Unserved path, or another method.
  if (!match.found) {
    if (match.allow.length === 0) return answerNow(core, res, base, noRoute(method, path), line);
    return answerNow(core, res, base, otherMethod(method, path, match.allow), line);
  }
  const served = match.route;
  const ctx: WriteContext = { ...base, csp: cspFor(served.kind, served.def.cspHashes) };

  // 5. Refusals that need no body.
  const delivery = served.kind === 'webhook' || served.kind === 'landing';
  // A running turn's coding run keeps its tool bridge through the drain: the drain waits for that turn
  // (ops/turn-engine.md "Drain"), which could not finish if its tool calls were refused.
  const bridge = served.pattern.startsWith('/mcp/');
  if (draining && !bridge && (isWrite(method) || delivery)) {
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
    // Repeated Content-Length values are identical here (step 0): merged into one, as RFC 9110 8.6 allows.
    if (headers[k] === undefined) headers[k] = v;
    else if (k !== 'content-length') headers[k] = `${headers[k]}, ${v}`;
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
  const log = core.log.child({ route: served.pattern, operator: line.operator });
  // 6a. The route's own checks that need no body (spec: a secret name is checked before the body; a
  // webhook without its secret or its signature header is refused unread).
  if (served.def.beforeBody) {
    let early: ApiReply | void;
    try {
      early = served.def.beforeBody(request, log);
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
        early,
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
    if (exchange.send(ctx, failedReply)) answered(failedReply.status);
  });
}

/**
 * 400 and close, answered on the next turn: uWS keeps parsing what follows the first length as a request
 * of its own and would serve it before a synchronous answer is flushed, while a response still pending
 * when such a request arrives makes uWS drop the connection instead. So the sender sees the 400, or (a
 * request hidden behind the first length) the connection closed; the hidden request is never served.
 */
function refuseFraming(
  core: GatewayCore,
  l: ListenerState,
  res: HttpResponse,
  base: WriteContext,
  line: RequestLine,
): void {
  const exchange = new Exchange(res, l);
  core.log.warn(
    { ...line, path: safePath(line.path), event: 'conflicting_content_length' },
    'conflicting_content_length',
  );
  const reply = errorReply('unreadable_body', {
    detail: 'The request carries Content-Length values that differ, so where its body ends is unknown.',
    hint: 'Send one Content-Length (identical repeats are accepted); the connection is closed.',
  });
  setImmediate(() => {
    if (exchange.send({ ...base, close: true }, reply)) logRequest(core, 'info', line, reply.status);
  });
}

function noRoute(method: string, path: string, hint?: string): ApiReply {
  return errorReply('no_route', {
    detail: `No route serves ${method} ${path}.`,
    ...(hint ? { hint } : {}),
  });
}

type RequestFacts = Omit<ApiRequest, 'body' | 'log' | 'actor'> & { actor: Actor | null };

async function serve(core: GatewayCore, r: Receiving, facts: RequestFacts): Promise<void> {
  try {
    await handle(core, r, facts);
  } finally {
    // The body's bytes count against the listener until the answer is written (the handler holds them).
    r.hold.release();
  }
}

async function handle(core: GatewayCore, r: Receiving, facts: RequestFacts): Promise<void> {
  const { exchange, route, ctx, log, fields } = r;
  const body = await receiveBody(core.limits, r);
  if (body === null) return;
  if (exchange.aborted) return;
  // A client leaving while its handler runs is logged at once; the handler's answer is then dropped.
  exchange.onAbort = () =>
    log.warn({ ...fields, event: 'client_disconnected', phase: 'handler' }, 'client_disconnected');

  let reply: ApiReply;
  let open: OpenStream | null = null;
  try {
    reply = await route.def.handler({ ...facts, body, log });
    // A streamed body's first chunk is read before the status: its failure still gets a coded answer.
    if (reply.body instanceof StreamedBody) open = await openStream(reply.body);
  } catch (err) {
    if (err instanceof ApiError) reply = err.toReply();
    else if (err instanceof BusError && isWrite(facts.method)) {
      // The bus failed under a write (its server lost, a stream electing a leader): say so with a code.
      log.warn({ ...fields, event: 'outcome_unknown', err }, 'write outcome unknown');
      reply = errorReply('outcome_unknown');
    } else {
      log.error({ ...fields, event: 'handler_failed', err }, 'handler_failed');
      reply = failedReply;
    }
  }
  reply = conventional(reply, seenOf(facts, route));
  if (open !== null)
    return streamAnswer(core, r, { ...ctx, close: ctx.close || core.isDraining() }, reply, open);
  const ms = Math.round(performance.now() - exchange.startedAt);
  let sent: boolean;
  try {
    sent = exchange.send({ ...ctx, close: ctx.close || core.isDraining() }, reply);
  } catch (err) {
    // The reply could not be encoded (nothing was written yet).
    log.error({ ...fields, event: 'handler_failed', err }, 'handler_failed');
    [reply, sent] = [failedReply, exchange.send(ctx, failedReply)];
  }
  if (sent) r.answered(reply.status);
  if (sent) log.info({ ...fields, ...reply.logged, status: reply.status, ms }, 'request');
  else
    log.info(
      { ...fields, ...reply.logged, event: 'answer_dropped', status: reply.status, ms },
      'answer dropped: client gone',
    );
}

/** A streamed answer: logged when it ended, whole, stopped by the client, or cut short by its reading. */
async function streamAnswer(
  core: GatewayCore,
  r: Receiving,
  ctx: WriteContext,
  reply: ApiReply,
  open: OpenStream,
): Promise<void> {
  const { exchange, log, fields } = r;
  // From here the stream's end says what happened; the handler-phase abort line would say it twice.
  exchange.onAbort = null;
  let end: StreamEnd | null;
  try {
    end = await exchange.stream(ctx, reply, open);
  } catch (err) {
    // The reply could not be encoded (nothing was written yet).
    log.error({ ...fields, event: 'handler_failed', err }, 'handler_failed');
    if (exchange.send(ctx, failedReply)) r.answered(failedReply.status);
    return;
  }
  const ms = Math.round(performance.now() - exchange.startedAt);
  if (end === null) {
    log.info({ ...fields, event: 'answer_dropped', status: reply.status, ms }, 'answer dropped: client gone');
    return;
  }
  r.answered(reply.status);
  const line = { ...fields, status: reply.status, ms, bytes: end.bytes, size: open.size };
  if (end.outcome === 'done') log.info(line, 'request');
  else if (end.outcome === 'stopped')
    log.warn({ ...line, event: 'client_disconnected', phase: 'answer' }, 'client_disconnected');
  else log.error({ ...line, event: 'answer_cut', err: end.err }, 'answer cut: its body could not be read');
}
