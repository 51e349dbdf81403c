/**
 * The gateway's own refusals, decided before a handler runs: a request whose framing cannot be trusted,
 * a path not served (or not under this method), and the refusals a served route gets without its body
 * read (the node draining or not yet configured).
 */
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { cutForQuote } from '../schema/index.js';
import { errorReply } from './api-error.js';
import { isWrite } from './guard.js';
import { Exchange, type WriteContext } from './respond.js';
import type { CompiledRoute } from './router.js';
import type { ApiReply } from './types.js';
import { unconfiguredNode } from './webhooks/receiver.js';
import {
  logRequest,
  safePath,
  type GatewayCore,
  type ListenerState,
  type RequestLine,
} from './dispatch.core.js';

const lengthHint =
  'Send one Content-Length of digits (identical repeats are accepted); the connection is closed.';

type FramingFault = 'conflicting' | 'not_a_length' | 'not_chunked_last' | 'unsupported_coding';

const framingReplies: Record<FramingFault, { event: string; reply: () => ApiReply }> = {
  conflicting: {
    event: 'conflicting_content_length',
    reply: () =>
      errorReply('unreadable_body', {
        detail: 'The request carries Content-Length values that differ, so where its body ends is unknown.',
        hint: lengthHint,
      }),
  },
  not_a_length: {
    event: 'invalid_content_length',
    reply: () =>
      errorReply('unreadable_body', {
        detail:
          'The request carries a Content-Length that is not a number of bytes, so where its body ends is unknown.',
        hint: lengthHint,
      }),
  },
  not_chunked_last: {
    event: 'unsupported_transfer_coding',
    reply: () =>
      errorReply('unsupported_transfer_coding', {
        detail:
          "The request's Transfer-Encoding does not end in `chunked`, so where its body ends is unknown; the body was not read.",
      }),
  },
  unsupported_coding: {
    event: 'unsupported_transfer_coding',
    reply: () =>
      errorReply('unsupported_transfer_coding', {
        detail:
          "The request's Transfer-Encoding names a coding before `chunked` (or `chunked` twice); this node reads `chunked` alone. The body was not read.",
      }),
  },
};

/**
 * 400 and close for framing that leaves the body's end unknown or its bytes unreadable: a Content-Length with
 * two values that differ or a negative one uWS let through, or a Transfer-Encoding other than `chunked` alone.
 * Answered on the next turn: uWS keeps parsing what follows the first length as a request of its own and
 * would serve it before a synchronous answer is flushed, while a response still pending when such a request
 * arrives makes uWS drop the connection instead. So the sender sees the 400, or (a request hidden behind the
 * first length, or a body uWS cannot read as chunks) the connection closed; the hidden request is never served.
 */
export function refuseFraming(
  core: GatewayCore,
  l: ListenerState,
  res: HttpResponse,
  base: WriteContext,
  line: RequestLine,
  fault: FramingFault,
): void {
  const exchange = new Exchange(res, l);
  const { event, reply: replyOf } = framingReplies[fault];
  core.log.warn({ ...line, path: safePath(line.path), event }, event);
  const reply = replyOf();
  setImmediate(() => {
    if (exchange.send({ ...base, close: true }, reply)) logRequest(core, 'info', line, reply.status);
  });
}

export function noRoute(method: string, path: string, hint?: string): ApiReply {
  return errorReply('no_route', {
    // The path is the caller's text, of any length: quoted cut, as every quoted value is; a run's path
    // token (/mcp/{token}, /otlp/{token}) is a credential, shown as [token] as the request log shows it.
    detail: `No route serves ${method} ${cutForQuote(safePath(path))}.`,
    ...(hint ? { hint } : {}),
  });
}

/**
 * 405 `method_not_allowed` for a served path asked under another method, with `Allow`; an OPTIONS asks for
 * that list and gets it (RFC 9110 9.3.7), 204 without CORS headers: the dashboard is same-origin.
 */
export function otherMethod(method: string, path: string, allow: readonly string[]): ApiReply {
  if (method === 'OPTIONS') return { status: 204, headers: { Allow: allow.join(', ') } };
  return errorReply('method_not_allowed', {
    detail: `${method} ${cutForQuote(safePath(path))} is not served; it is served under ${allow.join(', ')}.`,
    headers: { Allow: allow.join(', ') },
  });
}

/** The refusal a served route gets before its body is read (draining, unconfigured), or null. */
export function refusalBeforeBody(
  core: GatewayCore,
  served: CompiledRoute,
  method: string,
  draining: boolean,
): ApiReply | null {
  const delivery = served.kind === 'webhook' || served.kind === 'landing';
  // A running turn's coding run keeps its tool bridge through the drain: the drain waits for that turn
  // (ops/turn-engine.md "Drain"), which could not finish if its tool calls were refused.
  const bridge = served.pattern.startsWith('/mcp/');
  if (draining && !bridge && (isWrite(method) || delivery)) return errorReply('draining');
  if (served.kind === 'webhook' && served.def.servesUnconfigured !== true && !core.probes.configured()) {
    return unconfiguredNode();
  }
  return null;
}
