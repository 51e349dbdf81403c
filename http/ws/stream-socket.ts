/**
 * `WS /ws/stream` on uWebSockets.js: the upgrade runs the guard (spec "Authentication" 2 and 4: a token in
 * `Authorization` or `?token=`; needed only when anonymous reads are off, refused when present and wrong),
 * which also takes the token as a subprotocol (`svc.token.<base64url>` beside `svc.stream`): a browser can
 * set no header on a socket, and a URL ends up in its console and logs. Every token present must be right,
 * on whichever channel. The answer names `svc.stream` when it was offered and no subprotocol otherwise
 * (RFC 6455 4.2.2: only one the client offered, never the token); then the hub owns the socket. An upgrade lacking the rest of a version-13 handshake is answered 426 after
 * the guard. A GET uWS does not take as an upgrade (no 24-character key) falls through to the route table,
 * whose `/ws/stream` route answers the same 426 (or the guard's 401).
 * A socket is not bound by CORS: a page of another site could open it from a visitor's browser and read the
 * snapshot, so an upgrade whose `Origin` is not the host it was sent to is refused (403 `cross_origin`).
 */
import type { TemplatedApp, WebSocket } from '@trufflesuite/uws-js-unofficial';
import { errorReply } from '../api-error.js';
import { CSP_NONE } from '../headers.js';
import { accessFor, refusal, soleAuthorization, type Guard } from '../guard.js';
import { prepare, writeAnswer } from '../respond.js';
import type { Actor } from '../types.js';
import type { RequestObserver } from '../gateway.types.js';
import type { Logger } from 'pino';
import type { StreamClient } from './stream-client.js';
import { handshakeFault } from './stream-handshake.js';
import { STREAM_PATH } from './stream-path.js';
import { everyValue, offeredProtocols, STREAM_PROTOCOL } from './stream-protocols.js';
import type { StreamHub } from './stream-hub.js';

/** The largest client message the stream reads; a larger one closes the socket with 1009. */
const MAX_MESSAGE_BYTES = 64 * 1024;
/**
 * What the transport buffers of one message. uWS cuts a connection over it without a close frame (1006 to
 * the client), so it sits above the stream's own limit, which is enforced in `message` with a close frame
 * saying why; only a message over this still meets the transport's cut.
 */
const TRANSPORT_MAX_BYTES = 1024 * 1024;

/**
 * Whether an upgrade's `Origin` names the host (and port) the request was sent to, default ports folded by
 * the origin's scheme. A browser always sends `Origin` on a socket and a page can set neither it nor `Host`;
 * a client that is no browser sends none and passes. `null` (a sandboxed or file page) matches nothing.
 * `X-Forwarded-Host` counts as well (its first value): a proxy that rewrites `Host` forwards the browser's
 * there, and a page cannot set it on a socket either.
 */
function sameOrigin(origin: string, hosts: readonly string[]): boolean {
  if (origin === '') return true;
  try {
    const from = new URL(origin);
    if (from.protocol !== 'http:' && from.protocol !== 'https:') return false;
    return hosts.some((host) => host !== '' && new URL(`${from.protocol}//${host}`).host === from.host);
  } catch {
    return false;
  }
}

interface SocketData {
  readonly actor: Actor | null;
  readonly token: string | null;
  client: StreamClient | null;
}

const decoder = new TextDecoder();

/**
 * A handshake's answer, told and logged as the route table's are (spec: every request line names its route
 * and operator; ops/metrics.md: every answer counted): the upgrade never reaches the route table.
 */
function handshakeAnswered(
  log: Logger,
  observer: RequestObserver | null,
  startedAt: number,
  status: number,
  extra: { readonly operator: string | null; readonly [key: string]: unknown },
): void {
  observer?.answered({
    method: 'GET',
    route: STREAM_PATH,
    status,
    seconds: (performance.now() - startedAt) / 1000,
  });
  const line = { method: 'GET', path: STREAM_PATH, route: STREAM_PATH, status, ...extra };
  if (status === 403) log.warn(line, 'request');
  else log.info(line, 'request');
}

export function mountStream(
  app: TemplatedApp,
  hub: StreamHub,
  guard: Guard,
  log: Logger,
  observer: RequestObserver | null,
): void {
  hub.useVerifier((token) => guard.admit(token, STREAM_PATH));
  app.ws<SocketData>(STREAM_PATH, {
    maxPayloadLength: TRANSPORT_MAX_BYTES,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    // Our own queue bounds what waits; the transport must never drop behind our back.
    maxBackpressure: 64 * 1024 * 1024,
    upgrade: (res, req, context) => {
      const startedAt = performance.now();
      const origin = req.getHeader('origin');
      const forwarded = req.getHeader('x-forwarded-host').split(',')[0]?.trim() ?? '';
      if (!sameOrigin(origin, [req.getHeader('host'), forwarded])) {
        const ctx = { head: false, path: STREAM_PATH, csp: CSP_NONE, close: true };
        writeAnswer(res, ctx, prepare(errorReply('cross_origin')));
        const host = req.getHeader('host');
        handshakeAnswered(log, observer, startedAt, 403, {
          operator: null,
          event: 'cross_origin',
          origin,
          host,
        });
        return;
      }
      const query = new URLSearchParams(req.getQuery());
      const authorization = soleAuthorization(req);
      const key = req.getHeader('sec-websocket-key');
      const offered = offeredProtocols(req);
      const protocol = offered.speaksStream ? STREAM_PROTOCOL : '';
      const queryTokens = query.getAll('token');
      const extensions = req.getHeader('sec-websocket-extensions');
      const verdict = guard.check(
        accessFor('GET', STREAM_PATH, 'read'),
        STREAM_PATH,
        authorization,
        queryTokens,
        offered.tokens,
      );
      if (!verdict.ok) {
        writeAnswer(
          res,
          { head: false, path: STREAM_PATH, csp: CSP_NONE, close: true },
          prepare(refusal(verdict.reason)),
        );
        handshakeAnswered(log, observer, startedAt, 401, { operator: null });
        return;
      }
      // uWS took this as an upgrade for its key's length alone; the rest of RFC 6455 4.2.1 is checked here.
      const fault = handshakeFault({
        upgrade: req.getHeader('upgrade'),
        connection: everyValue(req, 'connection'),
        key,
        version: req.getHeader('sec-websocket-version'),
      });
      if (fault !== null) {
        writeAnswer(res, { head: false, path: STREAM_PATH, csp: CSP_NONE, close: true }, prepare(fault));
        handshakeAnswered(log, observer, startedAt, 426, { operator: verdict.actor?.id ?? null });
        return;
      }
      const bearer = /^bearer[ \t]+(.*)$/i.exec(authorization ?? '')?.[1]?.trim() ?? null;
      const data: SocketData = {
        actor: verdict.actor,
        token: bearer ?? offered.tokens[0] ?? queryTokens[0] ?? null,
        client: null,
      };
      res.upgrade(data, key, protocol, extensions, context);
      handshakeAnswered(log, observer, startedAt, 101, { operator: verdict.actor?.id ?? null });
    },
    open: (ws: WebSocket<SocketData>) => {
      const data = ws.getUserData();
      data.client = hub.attach(
        {
          send: (text) => ws.send(text, false, false),
          bufferedAmount: () => ws.getBufferedAmount(),
          end: (code, reason) => ws.end(code, reason),
          cork: (batch) => void ws.cork(batch),
        },
        data.actor,
        data.token,
      );
      log.debug(
        {
          event: 'stream_client_open',
          route: STREAM_PATH,
          operator: data.actor?.id ?? null,
          client: data.client.id,
        },
        'stream client open',
      );
    },
    message: (ws, message, isBinary) => {
      const client = ws.getUserData().client;
      if (client === null) return;
      if (message.byteLength > MAX_MESSAGE_BYTES) {
        ws.end(1009, 'message over 64 KiB');
        return;
      }
      hub.receive(client, isBinary ? null : decoder.decode(message));
    },
    drain: (ws) => ws.getUserData().client?.flush(),
    close: (ws, code, message) => {
      const data = ws.getUserData();
      // uWS cuts a protocol violation (invalid UTF-8, an unmasked frame) with no close frame and says why only
      // here, as 1006 (a code no peer may send): that reason is the library's, logged; a client's own is not.
      log.debug(
        {
          event: 'stream_client_gone',
          route: STREAM_PATH,
          operator: data.actor?.id ?? null,
          client: data.client?.id ?? null,
          code,
          reason: code === 1006 ? decoder.decode(message).slice(0, 123) : null,
        },
        'stream client gone',
      );
      if (data.client) hub.detach(data.client);
      data.client = null;
    },
  });
}
