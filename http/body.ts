/**
 * Reading a request body within its limits: a deadline (400 `unreadable_body`), a size cap, the listener's
 * budget of bytes in flight (503 `overloaded`), and the client hanging up (`client_disconnected`: the
 * handler never runs).
 */
import type { HttpRequest, HttpResponse } from '@trufflesuite/uws-js-unofficial';
import type { BodyHold } from './body-budget.js';
import type { Exchange } from './respond.js';

type Failure = 'timeout' | 'too_large' | 'aborted' | 'overloaded';

export type BodyResult =
  | { readonly ok: true; readonly body: Buffer }
  | {
      readonly ok: false;
      readonly reason: Failure;
      readonly received: number;
      readonly idleMs: number;
    };

const empty = Buffer.alloc(0);

/** The request has a body to read, judged from its headers. */
export function hasBody(contentLength: string, transferEncoding: string): boolean {
  return transferEncoding !== '' || (contentLength !== '' && contentLength !== '0');
}

/**
 * Why the request's Content-Length leaves its body's end unknown, or null when it does not. uWS frames the
 * body by the first value; a repeat with a different value means the sender (or a proxy) may frame it
 * otherwise, while identical repeats frame it the same way and are accepted (RFC 9110 8.6). A value that is
 * not digits is no length: uWS closes most such connections itself (and a list in one field line, `5, 5`),
 * but passes a negative one (`-1`) through.
 */
export function lengthFault(req: HttpRequest): 'conflicting' | 'not_a_length' | null {
  let first: string | null = null;
  let fault: 'conflicting' | 'not_a_length' | null = null;
  req.forEach((name, value) => {
    if (name !== 'content-length' || fault !== null) return;
    if (!/^\d+$/.test(value)) fault = 'not_a_length';
    else if (first === null) first = value;
    else if (value !== first) fault = 'conflicting';
  });
  return fault;
}

/**
 * Why the request's Transfer-Encoding cannot be read, or null when it is `chunked` alone (any case, over any
 * number of field lines). uWS reads every Transfer-Encoding as chunked whatever it names, so a coding before
 * `chunked` (`gzip, chunked`) would reach a handler still encoded, and a final coding other than `chunked`
 * leaves the body's end unknown (RFC 9112 6.1).
 */
export function codingFault(req: HttpRequest): 'not_chunked_last' | 'unsupported_coding' | null {
  const codings: string[] = [];
  req.forEach((name, value) => {
    if (name === 'transfer-encoding') codings.push(...value.split(',').map((c) => c.trim().toLowerCase()));
  });
  if (codings.length === 1 && codings[0] === 'chunked') return null;
  return codings.at(-1) === 'chunked' ? 'unsupported_coding' : 'not_chunked_last';
}

/**
 * Starts reading at once (uWS drops chunks that arrive before `onData` is set), so call it before the
 * request callback returns. Resolves once: with the whole body, or with why it could not be had. A body of
 * unknown length takes its bytes from `hold` as they arrive (a declared length was taken by the caller).
 */
export function readBody(
  res: HttpResponse,
  exchange: Exchange,
  opts: {
    readonly contentLength: number | null;
    readonly maxBytes: number;
    readonly timeoutMs: number;
    readonly hold: BodyHold;
  },
): Promise<BodyResult> {
  return new Promise((resolve) => {
    let received = 0;
    let lastChunkAt = performance.now();
    let settled = false;
    const chunks: Buffer[] = [];
    // A declared length is allocated once; a chunked body is collected.
    const whole = opts.contentLength !== null ? Buffer.allocUnsafe(opts.contentLength) : null;
    const settle = (result: BodyResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      exchange.onAbort = null;
      resolve(result);
    };
    const fail = (reason: Failure): void =>
      settle({ ok: false, reason, received, idleMs: Math.round(performance.now() - lastChunkAt) });
    const timer = setTimeout(() => fail('timeout'), opts.timeoutMs);
    exchange.onAbort = () => fail('aborted');
    res.onData((chunk, isLast) => {
      if (settled) return;
      lastChunkAt = performance.now();
      const size = chunk.byteLength;
      if (received + size > opts.maxBytes || (whole !== null && received + size > whole.length)) {
        received += size;
        fail('too_large');
        return;
      }
      if (whole === null && !opts.hold.take(size)) {
        fail('overloaded');
        return;
      }
      // The ArrayBuffer is neutered when this callback returns: copy now.
      if (whole !== null) Buffer.from(chunk).copy(whole, received);
      else if (size > 0) chunks.push(Buffer.from(Buffer.from(chunk)));
      received += size;
      if (!isLast) return;
      if (whole !== null)
        settle({ ok: true, body: received === whole.length ? whole : whole.subarray(0, received) });
      else settle({ ok: true, body: chunks.length === 0 ? empty : Buffer.concat(chunks, received) });
    });
  });
}
