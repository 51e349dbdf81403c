/**
 * Writing answers safely. uWebSockets.js aborts the process on a write to an aborted response, so every
 * write goes through `Exchange.send`, which checks the aborted flag and corks.
 */
import { STATUS_CODES } from 'node:http';
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { isNoStorePath, reservedHeaders } from './headers.js';
import { StreamedBody } from './reply.js';
import { StreamWriter, closeQuietly, type OpenStream, type StreamEnd } from './respond.stream.js';
import type { ApiReply } from './types.js';

const statusLines = new Map<number, string>();
const statusLine = (status: number): string => {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Status'}`;
    statusLines.set(status, line);
  }
  return line;
};

/** An answer encoded and checked, so nothing can throw once its first byte is written. */
export interface Prepared {
  readonly status: number;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly bytes: string | Buffer | undefined;
  readonly type: string | undefined;
}

/**
 * Encodes the body and checks the headers; throws (before any write) on a body JSON cannot encode, and on
 * a streamed body (only `Exchange.stream` writes one).
 */
export function prepare(reply: ApiReply): Prepared {
  const body = reply.body;
  let bytes: string | Buffer | undefined;
  let type: string | undefined;
  if (body === undefined) bytes = undefined;
  else if (body instanceof StreamedBody) throw new TypeError('a streamed body is written by Exchange.stream');
  else if (Buffer.isBuffer(body)) [bytes, type] = [body, 'application/octet-stream'];
  else if (typeof body === 'string') [bytes, type] = [body, 'text/plain; charset=utf-8'];
  else [bytes, type] = [JSON.stringify(body), 'application/json; charset=utf-8'];
  const headers = Object.entries(reply.headers ?? {});
  for (const [name, value] of headers) {
    if (/[\r\n]/.test(name + value))
      throw new TypeError(`header ${JSON.stringify(name)} contains a line break`);
  }
  return { status: reply.status, headers, bytes, type };
}

export interface WriteContext {
  readonly head: boolean;
  readonly path: string;
  readonly csp: string;
  /** Close the connection after this answer (draining, or a body left unread). */
  readonly close: boolean;
}

/** Writes one whole answer with the security headers. Call only on a live, corked response. */
export function writeAnswer(res: HttpResponse, ctx: WriteContext, answer: Prepared): void {
  writeHead(res, ctx, answer);
  if (ctx.head || answer.status === 204 || answer.status === 304) {
    // No body follows. This build's endWithoutBody(length) never completes and endWithoutBody(0) claims an
    // empty body, so the length is left out (allowed for HEAD) and closing is asked of the client.
    if (ctx.close) res.writeHeader('Connection', 'close');
    res.endWithoutBody();
  } else {
    res.end(answer.bytes ?? '', ctx.close);
  }
}

/** The status line, the security headers and the handler's own (those the gateway owns dropped). */
function writeHead(res: HttpResponse, ctx: WriteContext, answer: Prepared): void {
  const { type } = answer;
  res.writeStatus(statusLine(answer.status));
  res.writeHeader('Content-Security-Policy', ctx.csp);
  res.writeHeader('X-Frame-Options', 'DENY');
  res.writeHeader('X-Content-Type-Options', 'nosniff');
  res.writeHeader('Referrer-Policy', 'no-referrer');
  const noStore = isNoStorePath(ctx.path);
  if (noStore) res.writeHeader('Cache-Control', 'no-store');
  let typed = false;
  for (const [name, value] of answer.headers) {
    const lower = name.toLowerCase();
    if (reservedHeaders.has(lower) || (noStore && lower === 'cache-control')) continue;
    if (lower === 'content-type') typed = true;
    res.writeHeader(name, value);
  }
  if (!typed && type !== undefined) res.writeHeader('Content-Type', type);
}

/** Bookkeeping shared by the exchanges of one listener: the in-flight set, and who waits for it to empty. */
export interface ExchangeSet {
  readonly live: Set<Exchange>;
  onIdle: (() => void) | null;
}

/** One request served by a handler: in flight from its headers until its answer is written or it aborts. */
export class Exchange {
  aborted = false;
  finished = false;
  /** Called once when the client goes away before the answer is written. */
  onAbort: (() => void) | null = null;
  readonly startedAt = performance.now();
  /** While a streamed answer is being written: told when the response may no more be touched. */
  private writer: StreamWriter | null = null;

  constructor(
    private readonly res: HttpResponse,
    private readonly set: ExchangeSet,
  ) {
    set.live.add(this);
    res.onAborted(() => {
      this.aborted = true;
      this.writer?.stop();
      const notify = this.onAbort;
      this.finish();
      notify?.();
    });
  }

  /** Writes the answer unless the client left; true when written. Throws only from `prepare`, before writing. */
  send(ctx: WriteContext, reply: ApiReply): boolean {
    if (this.aborted || this.finished) return false;
    const answer = prepare(reply);
    this.res.cork(() => writeAnswer(this.res, ctx, answer));
    this.finish();
    return true;
  }

  /**
   * Writes an answer whose body is streamed (its first chunk already read) unless the client left, and
   * resolves once it ended; the reading is closed in every case. Throws only from `prepare`, before writing.
   */
  async stream(ctx: WriteContext, reply: ApiReply, open: OpenStream): Promise<StreamEnd | null> {
    let answer: Prepared;
    try {
      if (this.aborted || this.finished) {
        await closeQuietly(open.rest);
        return null;
      }
      answer = { ...prepare({ ...reply, body: undefined }), type: 'application/octet-stream' };
    } catch (err) {
      await closeQuietly(open.rest);
      throw err;
    }
    const res = this.res;
    const writer = new StreamWriter(res);
    this.writer = writer;
    const head = { write: () => writeHead(res, ctx, answer), headOnly: ctx.head, close: ctx.close };
    try {
      return await writer.run(head, open);
    } finally {
      this.writer = null;
      this.finish();
    }
  }

  /** The listener is being cut: nothing may be written to this response any more. */
  cut(): void {
    this.aborted = true;
    this.writer?.stop();
    this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.onAbort = null;
    this.set.live.delete(this);
    if (this.set.live.size === 0) this.set.onIdle?.();
  }
}
