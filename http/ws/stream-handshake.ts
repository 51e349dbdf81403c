/**
 * What an upgrade of `/ws/stream` lacks for RFC 6455 4.2.1, answered 426 naming it. uWS takes any GET with
 * a 24-character `Sec-WebSocket-Key` as an upgrade and checks nothing else, so both the upgrade handler (a
 * key of that length) and the route table (every other GET of the path) ask this before answering.
 */
import { codelessReply } from '../api-error.js';
import type { ApiReply } from '../types.js';

/** The one WebSocket version spoken (RFC 6455 4.2.2: a 426 names it in `Sec-WebSocket-Version`). */
const VERSION = '13';
/** 16 bytes in base64 (RFC 6455 4.1, item 7). */
const KEY = /^[A-Za-z0-9+/]{22}==$/;
/** An echoed header value is cut here, as refusals cut what they quote. */
const QUOTED_MAX = 80;

export interface HandshakeHeaders {
  /** '' when absent, as uWS and the gateway's header record both give it. */
  readonly upgrade: string;
  readonly connection: string;
  readonly key: string;
  readonly version: string;
}

const quoted = (value: string): string =>
  JSON.stringify(value.length > QUOTED_MAX ? `${value.slice(0, QUOTED_MAX)}…` : value);

const required = (detail: string, headers: Record<string, string> = {}): ApiReply =>
  codelessReply(
    426,
    `This path is a WebSocket: ${detail}`,
    'Connect with a WebSocket client (Connection: Upgrade, Upgrade: websocket, Sec-WebSocket-Version: 13).',
    { Upgrade: 'websocket', ...headers },
  );

/** The 426 for what the handshake lacks, or null when it is a whole version-13 WebSocket handshake. */
export function handshakeFault(h: HandshakeHeaders): ApiReply | null {
  const upgrade = h.upgrade.trim();
  if (upgrade === '') return required('the request carried no Upgrade header.');
  if (!upgrade.split(',').some((p) => p.trim().toLowerCase() === 'websocket'))
    return required(`the request asked to upgrade to ${quoted(upgrade)}, not websocket.`);
  // RFC 6455 4.2.1 item 4: `Connection` lists the token `Upgrade` (case-insensitive), often beside others.
  const connection = h.connection.trim();
  if (connection === '') return required('the request carried no Connection header (Connection: Upgrade).');
  if (!connection.split(',').some((p) => p.trim().toLowerCase() === 'upgrade'))
    return required(`the request carried Connection ${quoted(connection)}, without the token Upgrade.`);
  if (h.key === '') return required('the request carried no Sec-WebSocket-Key header.');
  if (!KEY.test(h.key.trim()))
    return required('the Sec-WebSocket-Key is not 16 bytes in base64 (24 characters ending in ==).');
  const version = h.version.trim();
  if (version !== VERSION)
    return required(
      version === ''
        ? 'the request carried no Sec-WebSocket-Version header; this node speaks version 13.'
        : `the request asked for Sec-WebSocket-Version ${quoted(version)}; this node speaks version 13.`,
      { 'Sec-WebSocket-Version': VERSION },
    );
  return null;
}
