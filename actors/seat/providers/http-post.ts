/**
 * The model clients' transport: one POST over node:http or node:https on keep-alive connections, its
 * answer read once as it streams. `fetch` did the same at about three times the CPU per call (its request
 * and response objects, web streams, a body iterator), which a turn of many quick tool rounds pays each
 * round.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** One POST's answer: the status, its headers, and the body, read once. */
export interface HttpAnswer {
  readonly status: number;
  /** A response header by name (any case); repeated ones joined with `, `; null when absent. */
  header(name: string): string | null;
  /** The body as it arrives. */
  readonly body: AsyncIterable<Uint8Array>;
  /** The whole body as UTF-8 text. */
  text(): Promise<string>;
  /** Drops the body unread (a refused call's body may quote the request or the key). */
  discard(): void;
}

export interface HttpPostInit {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Aborts the request, or the body being read. */
  readonly signal: AbortSignal;
}

/** Sends one POST; resolves once the status and headers arrived, rejects when no answer did. */
export type HttpPost = (url: string, init: HttpPostInit) => Promise<HttpAnswer>;

// Connections are kept for the next call to the same server: a turn asks the same provider round after round.
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

function answerOf(res: IncomingMessage): HttpAnswer {
  // A failure while nobody reads the body must not go unheard (an unheard stream error ends the process);
  // whoever reads it meets the failure in their loop.
  res.on('error', () => undefined);
  return {
    status: res.statusCode ?? 0,
    header: (name) => {
      const value = res.headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
    body: bodyOf(res),
    async text() {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    discard: () => void res.destroy(),
  };
}

/**
 * The body's chunks. A reader that stops early (a stream's `[DONE]` comes before its last bytes) leaves the
 * rest drained, not the connection destroyed, so it serves the next call.
 */
async function* bodyOf(res: IncomingMessage): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of res.iterator({ destroyOnReturn: false })) yield chunk as Buffer;
  } finally {
    if (!res.readableEnded && !res.destroyed) res.resume();
  }
}

export const nodePost: HttpPost = (url, init) => post(url, init, true);

/**
 * One POST. A server may close a kept-alive connection just as a request is sent on it; a reset of a reused
 * connection before any byte of an answer shows the request was not processed, so it is sent once more, on
 * a fresh connection, as HTTP clients do (RFC 9112 9.3.1), instead of failing the call. `retry` false: the
 * one retry, which is not retried again.
 */
function post(url: string, init: HttpPostInit, retry: boolean): Promise<HttpAnswer> {
  return new Promise<HttpAnswer>((resolve, reject) => {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') {
      reject(new TypeError(`${target.protocol} is not an HTTP scheme`));
      return;
    }
    const send = secure ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) },
        // The retry takes a connection of its own: the pool may hold more the server closed.
        agent: retry ? (secure ? agents.https : agents.http) : false,
        signal: init.signal,
      },
      (res) => resolve(answerOf(res)),
    );
    // Bytes the socket had read when this request took it: more by the failure means an answer began.
    let readBefore = 0;
    req.on('socket', (socket) => (readBefore = socket.bytesRead));
    req.on('error', (error: NodeJS.ErrnoException) => {
      const unanswered =
        req.reusedSocket && error.code === 'ECONNRESET' && req.socket?.bytesRead === readBefore;
      if (retry && unanswered && !init.signal.aborted) post(url, init, false).then(resolve, reject);
      else reject(error);
    });
    req.end(init.body);
  });
}
