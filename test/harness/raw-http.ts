/** A raw HTTP/1.1 connection for tests that need to control the socket (keep-alive across a drain). */
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface RawConnection {
  readonly socket: Socket;
  /** Sends one request and reads one response (Content-Length bodies only). */
  request(
    method: string,
    path: string,
    opts?: { headers?: Record<string, string>; body?: string },
  ): Promise<RawResponse>;
  /** Writes raw bytes without waiting for an answer. */
  write(text: string): void;
  /** Reads the next response. */
  response(): Promise<RawResponse>;
  close(): void;
}

export async function openConnection(port: number, host = '127.0.0.1'): Promise<RawConnection> {
  const socket = connect(port, host);
  await once(socket, 'connect');
  let buffer = Buffer.alloc(0);
  const pending: Array<() => void> = [];
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (const wake of pending.splice(0)) wake();
  });
  socket.on('close', () => {
    for (const wake of pending.splice(0)) wake();
  });
  const waitData = () => new Promise<void>((resolve) => pending.push(resolve));

  async function response(): Promise<RawResponse> {
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = buffer.subarray(0, end).toString('latin1').split('\r\n');
        const status = Number(head[0]!.split(' ')[1]);
        const headers: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        while (buffer.length < end + 4 + length) {
          if (socket.destroyed) throw new Error('connection closed mid-response');
          await waitData();
        }
        const body = buffer.subarray(end + 4, end + 4 + length).toString('utf8');
        buffer = buffer.subarray(end + 4 + length);
        return { status, headers, body };
      }
      if (socket.destroyed || socket.readableEnded) throw new Error('connection closed before a response');
      await waitData();
    }
  }

  return {
    socket,
    write: (text) => socket.write(text),
    response,
    async request(method, path, opts = {}) {
      const body = opts.body ?? '';
      const headers = {
        host: `${host}:${port}`,
        ...opts.headers,
        ...(body || method !== 'GET' ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
      };
      const head = Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n${body}`);
      return response();
    },
    close: () => socket.destroy(),
  };
}
