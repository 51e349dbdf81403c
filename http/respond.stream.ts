/**
 * Writing a `StreamedBody` with uWebSockets.js backpressure: one chunk is read, handed to `tryEnd`, and
 * the next is read only once uWS took the whole of it (at once, or from `onWritable` as the client reads),
 * so a response holds at most one chunk however large its body. Nothing touches the response once it was
 * aborted (uWS ends the process on that), and every write is corked.
 */
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import type { StreamedBody } from './reply.js';

/** A streamed body with its first chunk read (before the status is written) and the rest to come. */
export interface OpenStream {
  readonly size: number;
  readonly first: Uint8Array;
  readonly rest: AsyncIterator<Uint8Array>;
}

const empty = new Uint8Array(0);

/** Reads the first chunk; throws what the reading throws, with the iterator already closed. */
export async function openStream(body: StreamedBody): Promise<OpenStream> {
  const rest = body.chunks[Symbol.asyncIterator]();
  let first: IteratorResult<Uint8Array>;
  try {
    first = await rest.next();
  } catch (err) {
    await closeQuietly(rest);
    throw err;
  }
  const chunk = first.done ? empty : first.value;
  if (chunk.length > body.size || (first.done && body.size > 0)) {
    await closeQuietly(rest);
    throw new Error(`a streamed body of ${body.size} bytes starts with a chunk of ${chunk.length}`);
  }
  return { size: body.size, first: chunk, rest };
}

/** Ends the reading early; a failure to close is nothing the answer can act on. */
export async function closeQuietly(it: AsyncIterator<Uint8Array>): Promise<void> {
  try {
    await it.return?.();
  } catch {
    // The reader failed while closing: its error was the reason to close it, or it no longer matters.
  }
}

/** How a streamed answer ended: whole, stopped (the client left, the listener was cut), or cut short. */
export type StreamEnd =
  | { readonly outcome: 'done'; readonly bytes: number }
  | { readonly outcome: 'stopped'; readonly bytes: number }
  | { readonly outcome: 'failed'; readonly bytes: number; readonly err: unknown };

export interface StreamHead {
  /** Writes the status and headers (the caller's security headers); called corked, once, first. */
  readonly write: () => void;
  /** HEAD: the headers with the body's length, and no body. */
  readonly headOnly: boolean;
  /** Ask the client to close the connection after this answer. */
  readonly close: boolean;
}

interface Pending {
  readonly chunk: Uint8Array;
  /** The response's write offset when this chunk was first offered. */
  readonly start: number;
  readonly resolve: (taken: boolean) => void;
}

/** One streamed answer on one response. `stop()` when the response is aborted or cut. */
export class StreamWriter {
  private stopped = false;
  private pending: Pending | null = null;
  private size = 0;

  constructor(private readonly res: HttpResponse) {}

  /** The response may no more be touched: a write waiting for the client is given up. */
  stop(): void {
    this.stopped = true;
    const pending = this.pending;
    this.pending = null;
    pending?.resolve(false);
  }

  /** Writes the head and the body; resolves once it ended, with the reading closed in every case. */
  async run(head: StreamHead, open: OpenStream): Promise<StreamEnd> {
    const { res } = this;
    this.size = open.size;
    let sent = 0;
    try {
      if (this.stopped) return { outcome: 'stopped', bytes: 0 };
      if (head.headOnly) {
        res.cork(() => {
          head.write();
          // Written by hand: this build's endWithoutBody(length) never completes (see writeAnswer).
          res.writeHeader('Content-Length', String(open.size));
          if (head.close) res.writeHeader('Connection', 'close');
          res.endWithoutBody();
        });
        return { outcome: 'done', bytes: 0 };
      }
      res.onWritable((offset) => this.writable(offset));
      let chunk = open.first;
      let first = true;
      for (;;) {
        if (sent + chunk.length > open.size)
          throw new Error(`a streamed body yielded more than its ${open.size} bytes`);
        const taken = await this.offer(chunk, first ? head : null);
        first = false;
        if (!taken) return { outcome: 'stopped', bytes: sent };
        sent += chunk.length;
        // uWS completed the response with its last byte: it may not be touched again.
        if (sent === open.size) return { outcome: 'done', bytes: sent };
        const next = await open.rest.next();
        if (this.stopped) return { outcome: 'stopped', bytes: sent };
        if (next.done) throw new Error(`a streamed body ended at ${sent} of its ${open.size} bytes`);
        chunk = next.value;
      }
    } catch (err) {
      // The head is out: no coded answer is possible any more, so the client sees a short body.
      if (!this.stopped) {
        this.stopped = true;
        res.close();
      }
      return { outcome: 'failed', bytes: sent, err };
    } finally {
      await closeQuietly(open.rest);
    }
  }

  /** Hands a chunk to uWS; resolves true once all of it was taken, false if the response went away. */
  private offer(chunk: Uint8Array, head: StreamHead | null): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    const start = this.res.getWriteOffset();
    let ok = false;
    let done = false;
    this.res.cork(() => {
      if (head) {
        head.write();
        if (head.close) this.res.writeHeader('Connection', 'close');
      }
      [ok, done] = this.res.tryEnd(chunk, this.size);
    });
    if (ok || done) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => (this.pending = { chunk, start, resolve }));
  }

  /** uWS's writable event: offer what the client did not take yet. Spurious calls find nothing pending. */
  private writable(offset: number): boolean {
    const pending = this.pending;
    if (pending === null || this.stopped) return true;
    let ok = false;
    let done = false;
    this.res.cork(() => {
      [ok, done] = this.res.tryEnd(pending.chunk.subarray(offset - pending.start), this.size);
    });
    if (ok || done) {
      this.pending = null;
      pending.resolve(true);
    }
    return ok;
  }
}
