/**
 * What an upgrade of `/ws/stream` offers in `Sec-WebSocket-Protocol`: whether it speaks `svc.stream`, and the
 * tokens its `svc.token.<base64url of the UTF-8 token>` entries carry. Every header of that name is read as one
 * list (RFC 6455 11.3.4; uWS `getHeader` reads only the first), so a token in a second header is neither
 * missed nor left unchecked. Read by the upgrade and by the route table's `/ws/stream` (a GET without one),
 * which answer a credential alike.
 */

/** The one subprotocol the stream speaks, answered when offered. */
export const STREAM_PROTOCOL = 'svc.stream';
const TOKEN_PROTOCOL = 'svc.token.';

/** A header sent once or more, its values joined as RFC 9110 5.3 allows (`getHeader` reads only the first). */
export function everyValue(
  req: { forEach(cb: (key: string, value: string) => void): void },
  name: string,
): string {
  const values: string[] = [];
  req.forEach((key, value) => {
    if (key === name) values.push(value);
  });
  return values.join(', ');
}

export interface OfferedProtocols {
  readonly speaksStream: boolean;
  /** Every token offered, in order: more than one is refused by the guard, never one picked. */
  readonly tokens: readonly string[];
}

export function offeredProtocols(req: {
  forEach(cb: (key: string, value: string) => void): void;
}): OfferedProtocols {
  let speaksStream = false;
  const tokens: string[] = [];
  for (const offered of everyValue(req, 'sec-websocket-protocol').split(',')) {
    const value = offered.trim();
    if (value === STREAM_PROTOCOL) speaksStream = true;
    else if (value.startsWith(TOKEN_PROTOCOL))
      tokens.push(Buffer.from(value.slice(TOKEN_PROTOCOL.length), 'base64url').toString('utf8'));
  }
  return { speaksStream, tokens };
}
