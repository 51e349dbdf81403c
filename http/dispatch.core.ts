/**
 * What every step of a request through the gateway shares (dispatch.ts): the listener and gateway state,
 * the request's log line, and the synchronous answer written inside the uWS callback.
 */
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import type { Logger } from 'pino';
import { codelessReply } from './api-error.js';
import type { BodyBudget } from './body-budget.js';
import { conventional, unseen, type Seen } from './conventions.js';
import type { Guard } from './guard.js';
import { prepare, writeAnswer } from './respond.js';
import type { ExchangeSet, WriteContext } from './respond.js';
import type { RouteTable } from './router.js';
import type { ApiReply, GatewayLimits, ProbeSource } from './types.js';
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

/** The request as its log line names it; route and operator are filled in as dispatch learns them. */
export interface RequestLine {
  method: string;
  path: string;
  route: string | null;
  operator: string | null;
}

/** Segments after which a path carries a per-run token: `/mcp/{token}`, `/otlp/{token}/…`. */
const tokenPrefix = /^(mcp|otlp)$/i;

const decodedSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/**
 * A path as a line may log it: without the per-run token of `/mcp/{token}` and `/otlp/{token}/…`, nor the
 * one a mistyped URL carries to a 404 or 401 (`/mcp//{token}`, `/MCP/{token}`, `/mcp%2F{token}`, a receiver
 * URL whose path prefix nothing strips: `/svc/otlp/{token}/…`). `route`, when known, is the served pattern:
 * only the token routes carry one, so another served path is logged whole.
 */
export function safePath(path: string, route: string | null = null): string {
  if (route !== null && !/^\/(mcp|otlp)\//.test(route)) return path;
  const parts = path.split(/\/|%2f/i);
  let masked = false;
  for (let i = 0; i < parts.length; i++) {
    if (!tokenPrefix.test(decodedSegment(parts[i]!))) continue;
    let next = i + 1;
    while (next < parts.length && parts[next] === '') next++;
    if (next >= parts.length) break;
    parts[next] = '[token]';
    masked = true;
    i = next;
  }
  return masked ? parts.join('/') : path;
}

/** Tells the observer (metrics) of an answer written; `startedAt` is the request's arrival. */
export function observe(
  core: GatewayCore,
  method: string,
  route: string | null,
  status: number,
  startedAt: number,
): void {
  core.observer?.answered({ method, route, status, seconds: (performance.now() - startedAt) / 1000 });
}

/** The line is built only when its level is on: probes and refusals are the hot path. */
export function logRequest(
  core: GatewayCore,
  level: 'info' | 'debug',
  line: RequestLine,
  status: number,
): void {
  if (core.observer !== null) observe(core, line.method, line.route, status, performance.now());
  if (core.log.isLevelEnabled(level))
    core.log[level]({ ...line, path: safePath(line.path, line.route), status }, 'request');
}

/** Answers synchronously, inside the uWS callback (already corked). */
export function answerNow(
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

export const failedReply = codelessReply(
  500,
  'The request failed inside the node; its outcome is unknown.',
  'Read the state back before retrying; the node log has a handler_failed line for this route.',
);
