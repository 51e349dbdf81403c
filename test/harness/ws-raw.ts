/**
 * A WebSocket opened byte by byte, for tests that look at what a higher-level client hides: the exact
 * upgrade answer (repeated request headers, the subprotocol answered), frames of any size, and the close
 * code the server sent (or that it sent none: the connection was cut, 1006 to a browser).
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { frame, takeFrame } from '../../scripts/ws-client.js';

export interface RawUpgrade {
  readonly status: number;
  /** Answer header names (lower case) with every value, in order. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The body of a refused upgrade (read until the server closes). */
  readonly body: string;
  readonly socket: Socket;
  /** One masked text frame. */
  sendText(payload: string | Buffer): void;
  /** Resolves with the next text message the server sends. */
  nextText(): Promise<string>;
  /** The server's close code, or null when the connection ended without a close frame. */
  readonly closed: Promise<{ code: number | null; reason: string }>;
  destroy(): void;
}

/** Sends the upgrade for `path` on `port` with `headers` (a name may repeat) and reads the answer. */
export async function rawWebSocket(
  port: number,
  path: string,
  headers: ReadonlyArray<readonly [string, string]> = [],
  host = `127.0.0.1:${port}`,
): Promise<RawUpgrade> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: ${host}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
    'Sec-WebSocket-Version: 13',
    ...headers.map(([k, v]) => `${k}: ${v}`),
  ];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);

  let buffer: Buffer = Buffer.alloc(0);
  const texts: string[] = [];
  const waiting: Array<() => void> = [];
  let closeFrame: { code: number | null; reason: string } | null = null;
  let ended = false;
  const wake = (): void => {
    for (const w of waiting.splice(0)) w();
  };
  const closed = new Promise<{ code: number | null; reason: string }>((resolve) =>
    socket.once('close', () => {
      ended = true;
      wake();
      resolve(closeFrame ?? { code: null, reason: '' });
    }),
  );
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    wake();
  });
  const more = (): Promise<void> => new Promise((resolve) => waiting.push(resolve));

  let end = buffer.indexOf('\r\n\r\n');
  while (end < 0) {
    if (ended) throw new Error(`connection closed before an answer: ${buffer.toString('latin1')}`);
    await more();
    end = buffer.indexOf('\r\n\r\n');
  }
  const head = buffer.subarray(0, end).toString('latin1').split('\r\n');
  buffer = buffer.subarray(end + 4);
  const status = Number(head[0]!.split(' ')[1]);
  const answer: Array<readonly [string, string]> = head.slice(1).map((line) => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const;
  });
  let body = '';
  if (status !== 101) {
    await closed;
    body = buffer.toString('utf8');
  }

  // Server frames are unmasked; text frames are queued, a close frame's code kept, a ping answered.
  const parse = (): void => {
    for (;;) {
      const taken = takeFrame(buffer);
      if (taken === null) return;
      const { opcode, payload } = taken;
      buffer = taken.rest;
      if (opcode === 1) texts.push(payload.toString('utf8'));
      else if (opcode === 9 && !socket.destroyed) socket.write(frame(10, payload));
      else if (opcode === 8) {
        closeFrame = {
          code: payload.length >= 2 ? payload.readUInt16BE(0) : null,
          reason: payload.subarray(2).toString('utf8'),
        };
        socket.end();
      }
    }
  };
  if (status === 101) socket.on('data', parse);
  parse();

  return {
    status,
    headers: answer,
    body,
    socket,
    sendText: (payload) => socket.write(frame(1, Buffer.from(payload))),
    async nextText() {
      for (;;) {
        parse();
        const text = texts.shift();
        if (text !== undefined) return text;
        if (ended) throw new Error('connection closed before a text message');
        await more();
      }
    },
    closed,
    destroy: () => socket.destroy(),
  };
}

/** Every value of answer header `name`. */
export const headerValues = (u: RawUpgrade, name: string): string[] =>
  u.headers.filter(([k]) => k === name).map(([, v]) => v);
