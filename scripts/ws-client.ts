/**
 * A small WebSocket client (RFC 6455, text frames only) for the `svc events tail` verb and the tests: Node 20
 * has no WebSocket client without a flag, and the stream needs no more than text, ping and close.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export interface WsClient {
  readonly socket: Socket;
  /** Sends one text frame (masked, as a client must). */
  send(text: string): void;
  close(): void;
  /** Resolves when the connection ends. */
  readonly closed: Promise<void>;
}

/** The server answered the upgrade with something other than 101. */
export class UpgradeRefusedError extends Error {
  override name = 'UpgradeRefusedError';
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`upgrade refused with ${status}: ${body}`);
  }
}

/** One masked client frame (FIN set). */
export function frame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const len = payload.length;
  const head = len < 126 ? Buffer.alloc(2) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (len < 126) head[1] = 0x80 | len;
  else if (len < 65536) {
    head[1] = 0x80 | 126;
    head.writeUInt16BE(len, 2);
  } else {
    head[1] = 0x80 | 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  const body = Buffer.alloc(len);
  for (let i = 0; i < len; i++) body[i] = (payload[i] as number) ^ (mask[i & 3] as number);
  return Buffer.concat([head, mask, body]);
}

/** One whole server frame off the front of `buffer` (unmasked, as a server sends), or null until it has arrived. */
export function takeFrame(buffer: Buffer): {
  readonly fin: boolean;
  readonly opcode: number;
  readonly payload: Buffer;
  readonly rest: Buffer;
} | null {
  if (buffer.length < 2) return null;
  const b0 = buffer[0] as number;
  let len = (buffer[1] as number) & 0x7f;
  let offset = 2;
  if (len === 126) {
    if (buffer.length < 4) return null;
    len = buffer.readUInt16BE(2);
    offset = 4;
  } else if (len === 127) {
    if (buffer.length < 10) return null;
    len = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  if (buffer.length < offset + len) return null;
  return {
    fin: (b0 & 0x80) !== 0,
    opcode: b0 & 0x0f,
    payload: buffer.subarray(offset, offset + len),
    rest: buffer.subarray(offset + len),
  };
}

/**
 * Opens `ws://host:port/path?query` with extra request headers; `onText` gets every text message.
 * Rejects with `UpgradeRefusedError` when the server answers the upgrade with an HTTP status.
 */
export function openWs(
  url: string,
  onText: (text: string) => void,
  headers: Readonly<Record<string, string>> = {},
): Promise<WsClient> {
  const target = new URL(url);
  const socket = connect(Number(target.port || 80), target.hostname);
  const key = randomBytes(16).toString('base64');
  let buffer: Buffer = Buffer.alloc(0);
  let upgraded = false;
  let fragments: Buffer[] = [];
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return new Promise<WsClient>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => {
      const lines = [
        `GET ${target.pathname}${target.search} HTTP/1.1`,
        `Host: ${target.host}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${key}`,
        'Sec-WebSocket-Version: 13',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    const client: WsClient = {
      socket,
      send: (text) => socket.write(frame(1, Buffer.from(text))),
      close: () => {
        if (!socket.destroyed) socket.end(frame(8, Buffer.from([0x03, 0xe8])));
      },
      closed,
    };
    socket.on('close', () => {
      if (!upgraded) reject(new UpgradeRefusedError(0, buffer.toString()));
    });
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        // An HTTP/1.0 server (something else at the address) answers with its own version.
        const status = Number(/^HTTP\/1\.[01] (\d+)/.exec(head)?.[1] ?? 0);
        if (status !== 101) {
          socket.once('end', () => undefined);
          const rest = buffer.subarray(end + 4).toString();
          socket.destroy();
          reject(new UpgradeRefusedError(status, rest));
          return;
        }
        upgraded = true;
        buffer = buffer.subarray(end + 4);
        resolve(client);
      }
      // Frames: FIN/opcode, length (7, 16 or 64 bits), unmasked payload from a server.
      for (;;) {
        const taken = takeFrame(buffer);
        if (taken === null) return;
        const { fin, opcode, payload } = taken;
        buffer = taken.rest;
        if (opcode === 9) socket.write(frame(10, payload));
        else if (opcode === 8) {
          socket.end();
          return;
        } else if (opcode === 1 || opcode === 0) {
          fragments.push(Buffer.from(payload));
          if (fin) {
            const text = Buffer.concat(fragments).toString('utf8');
            fragments = [];
            onText(text);
          }
        }
      }
    });
  });
}
