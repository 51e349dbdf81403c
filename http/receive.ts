/**
 * Getting a routed request's body, or answering why not: over the route's size (413 `body_too_large`),
 * past the deadline (400 `unreadable_body`), past the listener's budget of body bytes in flight (503
 * `overloaded`), or the client gone (logged, no answer). Every refusal closes the connection: the rest of the body is never read.
 */
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import type { Logger } from 'pino';
import { errorReply } from './api-error.js';
import type { BodyHold } from './body-budget.js';
import { hasBody, readBody, type BodyResult } from './body.js';
import { inRouteShape } from './conventions.js';
import type { Exchange, WriteContext } from './respond.js';
import type { CompiledRoute } from './router.js';
import type { ApiReply, GatewayLimits } from './types.js';

export interface Receiving {
  readonly res: HttpResponse;
  readonly exchange: Exchange;
  readonly route: CompiledRoute;
  readonly headers: Readonly<Record<string, string>>;
  readonly ctx: WriteContext;
  readonly log: Logger;
  /** Request line fields for the log. */
  readonly fields: { readonly method: string; readonly path: string };
  /** This request's share of the listener's budget; the caller releases it when the exchange ends. */
  readonly hold: BodyHold;
  /** Called with the status once an answer is written. */
  readonly answered: (status: number) => void;
}

type Failed = Extract<BodyResult, { ok: false }>;

const empty = Buffer.alloc(0);

/** The whole body, or null once the refusal was answered (or the client left). */
export async function receiveBody(limits: GatewayLimits, r: Receiving): Promise<Buffer | null> {
  const { headers, route } = r;
  if (!hasBody(headers['content-length'] ?? '', headers['transfer-encoding'] ?? '')) return empty;
  const length = Number(headers['content-length']);
  const declared = headers['transfer-encoding'] || !Number.isSafeInteger(length) ? null : length;
  const maxBytes =
    route.def.maxBodyBytes ??
    (route.kind === 'webhook' ? limits.webhookBodyMaxBytes : limits.apiBodyMaxBytes);
  let result: BodyResult;
  if (declared !== null && declared > maxBytes)
    result = { ok: false, reason: 'too_large', received: 0, idleMs: 0 };
  // A declared length is held whole before a byte is read; a chunked body is held as it arrives.
  else if (declared !== null && !r.hold.take(declared))
    result = { ok: false, reason: 'overloaded', received: 0, idleMs: 0 };
  else
    result = await readBody(r.res, r.exchange, {
      contentLength: declared,
      maxBytes,
      timeoutMs: limits.bodyTimeoutMs,
      hold: r.hold,
    });
  if (result.ok) return result.body;
  refuse(limits, r, result, maxBytes);
  return null;
}

function refuse(limits: GatewayLimits, r: Receiving, result: Failed, maxBytes: number): void {
  const { fields, log, route } = r;
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
  let reply: ApiReply;
  if (result.reason === 'overloaded') {
    const max = r.hold.max;
    log.warn(
      {
        ...fields,
        event: 'body_refused_overloaded',
        received: result.received,
        in_flight: r.hold.listenerInFlight,
        max_bytes: max,
      },
      'body_refused_overloaded',
    );
    reply = errorReply('overloaded', {
      detail: `This listener already holds its ${max} bytes of request bodies in flight; this body was not read.`,
    });
  } else {
    const event = route.kind === 'webhook' ? 'webhook_body_unreadable' : 'body_unreadable';
    log.warn(
      { ...fields, event, reason: result.reason, received: result.received, max_bytes: maxBytes },
      event,
    );
    reply = unreadable(limits, route, result.reason, maxBytes);
  }
  reply = inRouteShape(route, reply, r.headers);
  if (r.exchange.send({ ...r.ctx, close: true }, reply)) r.answered(reply.status);
  log.info({ ...fields, status: reply.status }, 'request');
}

function unreadable(
  limits: GatewayLimits,
  route: CompiledRoute,
  reason: 'timeout' | 'too_large',
  maxBytes: number,
): ApiReply {
  // Past the size is 413 on every route: the same body cannot succeed again, unlike a late or cut one.
  if (reason === 'too_large')
    return errorReply('body_too_large', {
      detail: `The ${route.kind === 'webhook' ? 'delivery' : 'body'} is larger than this route accepts (${inBytes(maxBytes)}).`,
      hint:
        route.def.tooLargeHint ??
        (route.kind === 'webhook'
          ? `Deliveries are limited to ${sizeOf(maxBytes)}; send a smaller payload (the sender's retry will not help).`
          : `This route takes a body of at most ${sizeOf(maxBytes)}; send a smaller one (the same body will be refused again).`),
      extra: { max_bytes: maxBytes },
    });
  return errorReply('unreadable_body', {
    detail: `The body was not delivered within ${limits.bodyTimeoutMs} ms.`,
  });
}

/** A byte count as people say it: `8 MiB`, `64 KiB`, else bytes. */
function sizeOf(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** A limit in bytes and, when it is a whole number of them, in KiB or MiB: `65536 bytes, 64 KiB`. */
function inBytes(bytes: number): string {
  const said = sizeOf(bytes);
  return said === `${bytes} bytes` ? said : `${bytes} bytes, ${said}`;
}
