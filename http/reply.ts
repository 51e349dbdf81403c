// A leaf of its own, so the error model and the route types can both name a reply without importing each other.
/**
 * A handler's answer. A Buffer or string body is sent as is, a `StreamedBody` is written as it is read;
 * anything else is JSON-encoded.
 */
export interface ApiReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** What the handler has to say about the request, written on its `request` log line (one line, not two). */
  readonly logged?: Readonly<Record<string, string | number | boolean | null>>;
}

/**
 * A body of known length written while it is read, so it is never held whole: `Content-Length` is its
 * size and the chunks must add up to it. Its first chunk is read before the status is written, so a
 * failure there (an `ApiError`, say) still gets its coded answer; a failure after it cuts the connection
 * (the client sees a body shorter than announced). A client that leaves ends the reading (`return()`).
 */
export class StreamedBody {
  constructor(
    readonly size: number,
    readonly chunks: AsyncIterable<Uint8Array>,
  ) {}
}
