/**
 * Reading a request body within its limits: a deadline (400 `unreadable_body`), a size cap, and the
 * client hanging up (`client_disconnected`: the handler never runs).
 */
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import type { Exchange } from './respond.js';

export type BodyResult =
  | { readonly ok: true; readonly body: Buffer }
  | {
      readonly ok: false;
      readonly reason: 'timeout' | 'too_large' | 'aborted';
      readonly received: number;
      readonly idleMs: number;
    };

const empty = Buffer.alloc(0);

/** The request has a body to read, judged from its headers. */
export function hasBody(contentLength: string, transferEncoding: string): boolean {
  return transferEncoding !== '' || (contentLength !== '' && contentLength !== '0');
}

/**
 * Starts reading at once (uWS drops chunks that arrive before `onData` is set), so call it before the
 * request callback returns. Resolves once: with the whole body, or with why it could not be had.
 */
export function readBody(
  res: HttpResponse,
  exchange: Exchange,
  opts: { readonly contentLength: number | null; readonly maxBytes: number; readonly timeoutMs: number },
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
    const fail = (reason: 'timeout' | 'too_large' | 'aborted'): void =>
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
