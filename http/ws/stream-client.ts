/**
 * One connected dashboard and its outbound queue. Frames go straight to the socket while its send buffer
 * is below `highWater`; past it they wait in a bounded queue (at most `maxQueue` envelopes and `maxQueueBytes`
 * bytes) and the oldest is dropped when a stalled client lets it fill (`dropped` counts them). A queued
 * replace-style frame (a whole section, health) is superseded by a newer one of the same kind.
 */
import type { Actor } from '../types.js';

/**
 * A text frame as handed to a socket: the hub's are UTF-8 bytes, encoded once and the same bytes sent to
 * every socket (a string would be converted to UTF-8 again by the transport for each one).
 */
export type WireText = string | Uint8Array;

/** What the hub needs of a socket (uWebSockets.js in production, anything in tests). */
export interface SocketSink {
  /** 1 sent, 0 sent but buffered, 2 dropped by the transport. */
  send(text: WireText): number;
  bufferedAmount(): number;
  end(code: number, reason: string): void;
  /** Runs `batch` with the socket's writes held and sent together (one write to the kernel, not one each). */
  cork?(batch: () => void): void;
}

/** A frame the hub hands every socket: its bytes and how a stalled queue treats it. */
export interface Envelope {
  readonly text: WireText;
  readonly kind: string;
  readonly replace: boolean;
}

export interface ClientLimits {
  readonly maxQueue: number;
  readonly maxQueueBytes: number;
  readonly highWater: number;
}

export const defaultClientLimits: ClientLimits = Object.freeze({
  maxQueue: 512,
  maxQueueBytes: 8 * 1024 * 1024,
  highWater: 256 * 1024,
});

interface Queued {
  readonly text: WireText;
  /** UTF-8 bytes on the wire (the bound is in bytes; `text.length` counts UTF-16 units). */
  readonly bytes: number;
  readonly kind: string;
  readonly replace: boolean;
}

export class StreamClient {
  private queue: Queued[] = [];
  private head = 0;
  private bytes = 0;
  /** Envelopes dropped because the client did not read. */
  dropped = 0;
  /** Frames written to the socket. */
  sent = 0;
  /** Tokens its query frames carried that named no one. */
  refusedTokens = 0;
  closed = false;

  constructor(
    readonly id: number,
    private readonly sink: SocketSink,
    readonly token: string | null,
    /** Who opened the socket (null: anonymous reads); a query frame's own token may name another. */
    readonly actor: Actor | null,
    private readonly limits: ClientLimits,
  ) {}

  get queued(): number {
    return this.queue.length - this.head;
  }

  get queuedBytes(): number {
    return this.bytes;
  }

  /** Sends now when the socket keeps up, else queues (dropping the oldest past the bounds). */
  deliver(text: WireText, kind: string, replace: boolean): void {
    if (this.closed) return;
    if (this.queued === 0 && this.sink.bufferedAmount() < this.limits.highWater) {
      this.write(text);
      return;
    }
    if (replace) this.supersede(kind);
    // Measured only here, on the slow path: a frame written at once is never counted.
    const bytes = typeof text === 'string' ? Buffer.byteLength(text) : text.byteLength;
    this.queue.push({ text, bytes, kind, replace });
    this.bytes += bytes;
    while (
      this.queued > this.limits.maxQueue ||
      (this.bytes > this.limits.maxQueueBytes && this.queued > 1)
    ) {
      const oldest = this.queue[this.head] as Queued;
      this.head += 1;
      this.bytes -= oldest.bytes;
      this.dropped += 1;
    }
    this.compact();
  }

  /** Several frames at once, in order, written together when the socket can hold its writes. */
  deliverAll(envelopes: readonly Envelope[]): void {
    // One frame is one write anyway: corking it would only cost a call into the transport and back.
    if (envelopes.length === 1 || !this.sink.cork) {
      for (const e of envelopes) this.deliver(e.text, e.kind, e.replace);
      return;
    }
    this.sink.cork(() => {
      for (const e of envelopes) this.deliver(e.text, e.kind, e.replace);
    });
  }

  /** The socket drained: send what waits while the buffer stays below the high-water mark. */
  flush(): void {
    while (!this.closed && this.queued > 0 && this.sink.bufferedAmount() < this.limits.highWater) {
      const next = this.queue[this.head] as Queued;
      this.head += 1;
      this.bytes -= next.bytes;
      this.write(next.text);
    }
    this.compact();
  }

  private write(text: WireText): void {
    if (this.sink.send(text) !== 2) this.sent += 1;
    else this.dropped += 1;
  }

  private supersede(kind: string): void {
    const kept: Queued[] = [];
    for (let i = this.head; i < this.queue.length; i += 1) {
      const q = this.queue[i] as Queued;
      if (q.replace && q.kind === kind) this.bytes -= q.bytes;
      else kept.push(q);
    }
    this.queue = kept;
    this.head = 0;
  }

  private compact(): void {
    if (this.head > 0 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  end(code: number, reason: string): void {
    if (this.closed) return;
    this.sink.end(code, reason);
  }

  release(): void {
    this.closed = true;
    this.queue = [];
    this.head = 0;
    this.bytes = 0;
  }
}
