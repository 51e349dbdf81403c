/**
 * One connected dashboard and its outbound queue. Frames go straight to the socket while its send buffer
 * is below `highWater`; past it they wait in a bounded queue (at most `maxQueue` envelopes and `maxQueueBytes`
 * bytes) and the oldest is dropped when a stalled client lets it fill (`dropped` counts them). A queued
 * replace-style frame (a whole section, health) is superseded by a newer one of the same kind.
 *
 * A socket that lost frames is made whole once it reads again: when its queue has drained with its send
 * buffer under `highWater`, `onGap` is called (the hub sends it a fresh snapshot carrying the count lost).
 * An answer to one of its questions is never dropped without a word: shed from the queue, it is replaced by
 * its coded error (`stub`), which is kept and sent before anything newer; at most `maxAnswers` answers wait
 * on one socket, and one more closes it (1008), which settles every question on the client's side.
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
  /** Answers (whole or shed to their error) that may wait unsent on one socket; one more closes it. */
  readonly maxAnswers: number;
}

export const defaultClientLimits: ClientLimits = Object.freeze({
  maxQueue: 512,
  maxQueueBytes: 8 * 1024 * 1024,
  highWater: 256 * 1024,
  maxAnswers: 128,
});

interface Queued {
  readonly text: WireText;
  /** UTF-8 bytes on the wire (the bound is in bytes; `text.length` counts UTF-16 units). */
  readonly bytes: number;
  readonly kind: string;
  readonly replace: boolean;
  /** An answer's coded error, sent in its place when the answer is shed. */
  readonly stub?: () => WireText;
}

/** What a socket does once its queue drained after losing frames (the hub sends a snapshot). */
export type GapListener = (client: StreamClient) => void;

export class StreamClient {
  private queue: Queued[] = [];
  private head = 0;
  private bytes = 0;
  /** Errors standing in for shed answers: older than anything queued, never dropped. */
  private kept: WireText[] = [];
  /** Envelopes dropped because the client did not read (answers shed to their error included). */
  dropped = 0;
  /** Envelopes dropped since the client's state was last whole (a snapshot was built for it). */
  private unsynced = 0;
  /** Answers queued or kept, not yet written. */
  answersWaiting = 0;
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
    private readonly onGap: GapListener = () => undefined,
  ) {}

  get queued(): number {
    return this.queue.length - this.head;
  }

  /** Takes the count of envelopes lost since the state was last whole: a snapshot is being built now. */
  takeUnsynced(): number {
    const lost = this.unsynced;
    this.unsynced = 0;
    return lost;
  }

  get queuedBytes(): number {
    return this.bytes;
  }

  /** Sends now when the socket keeps up, else queues (dropping the oldest past the bounds). */
  deliver(text: WireText, kind: string, replace: boolean): void {
    if (this.closed) return;
    if (this.queued === 0 && this.kept.length === 0 && this.sink.bufferedAmount() < this.limits.highWater) {
      this.write(text);
      return;
    }
    this.enqueue(text, kind, replace, undefined);
  }

  /**
   * An answer to one of the client's questions: sent or queued as any frame, but never dropped without a
   * word (shed, `stub` is sent in its place). Past `maxAnswers` waiting the socket is closed (1008); false
   * then.
   */
  deliverAnswer(text: WireText, kind: string, stub: () => WireText): boolean {
    if (this.closed) return false;
    if (this.queued === 0 && this.kept.length === 0 && this.sink.bufferedAmount() < this.limits.highWater) {
      this.write(text);
      return true;
    }
    if (this.answersWaiting >= this.limits.maxAnswers) {
      this.end(1008, 'too many unanswered queries');
      return false;
    }
    this.answersWaiting += 1;
    this.enqueue(text, kind, false, stub);
    return true;
  }

  private enqueue(text: WireText, kind: string, replace: boolean, stub: (() => WireText) | undefined): void {
    if (replace) this.supersede(kind);
    // Measured only here, on the slow path: a frame written at once is never counted.
    const bytes = typeof text === 'string' ? Buffer.byteLength(text) : text.byteLength;
    this.queue.push(stub ? { text, bytes, kind, replace, stub } : { text, bytes, kind, replace });
    this.bytes += bytes;
    while (
      this.queued > this.limits.maxQueue ||
      (this.bytes > this.limits.maxQueueBytes && this.queued > 1)
    ) {
      const oldest = this.queue[this.head] as Queued;
      this.head += 1;
      this.bytes -= oldest.bytes;
      this.dropped += 1;
      // The oldest waiting: its error goes before everything still queued, as the answer would have.
      if (oldest.stub) this.kept.push(oldest.stub());
      else this.unsynced += 1;
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
    const open = (): boolean => !this.closed && this.sink.bufferedAmount() < this.limits.highWater;
    while (this.kept.length > 0 && open()) {
      this.answersWaiting -= 1;
      this.write(this.kept.shift() as WireText);
    }
    while (this.kept.length === 0 && this.queued > 0 && open()) {
      const next = this.queue[this.head] as Queued;
      this.head += 1;
      this.bytes -= next.bytes;
      if (next.stub) this.answersWaiting -= 1;
      this.write(next.text);
    }
    this.compact();
    // Drained after a loss: the hub makes the client whole (a snapshot it may have to queue in turn).
    if (this.unsynced > 0 && this.queued === 0 && this.kept.length === 0 && open()) this.onGap(this);
  }

  private write(text: WireText): void {
    if (this.sink.send(text) !== 2) this.sent += 1;
    else {
      this.dropped += 1;
      this.unsynced += 1;
    }
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
    this.kept = [];
    this.answersWaiting = 0;
    this.head = 0;
    this.bytes = 0;
  }
}
