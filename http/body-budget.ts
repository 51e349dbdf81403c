/**
 * The request-body bytes one listener holds at once. Without a cap, memory grows with whatever senders
 * choose to upload in parallel (40 concurrent 24 MiB bodies took a node past 1 GB); with it, a body that
 * would pass the cap is refused unread. A declared length is held whole when its headers arrive; a chunked
 * body is held chunk by chunk. Bytes are given back when the exchange ends.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly max: number) {}

  /** Bytes held right now. */
  get inFlight(): number {
    return this.used;
  }

  /** A holder for one request's bytes; release it once, when the exchange ends. */
  hold(): BodyHold {
    return new BodyHold(this);
  }

  /** @internal Takes `bytes` when they fit, or when nothing else is held (one body always passes alone). */
  take(bytes: number): boolean {
    if (this.used > 0 && this.used + bytes > this.max) return false;
    this.used += bytes;
    return true;
  }

  /** @internal */
  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

/** One request's share of a listener's budget. */
export class BodyHold {
  private held = 0;

  constructor(private readonly budget: BodyBudget) {}

  /** The listener's cap, for the refusal's words. */
  get max(): number {
    return this.budget.max;
  }

  /** Bytes the listener holds right now, for the refusal's log line. */
  get listenerInFlight(): number {
    return this.budget.inFlight;
  }

  /** Takes `bytes` more; false (nothing taken) when the listener is full. */
  take(bytes: number): boolean {
    if (!this.budget.take(bytes)) return false;
    this.held += bytes;
    return true;
  }

  release(): void {
    this.budget.give(this.held);
    this.held = 0;
  }
}
