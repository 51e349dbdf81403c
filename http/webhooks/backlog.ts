/**
 * Backpressure from routing to acceptance. A receiver answers a delivery once it is stored; routing it
 * (parse, `webhook_received`, the notification, the wakes) comes after, on the same thread. A sender that
 * keeps sending faster than routing would grow the stored-but-unrouted backlog without bound, so while that
 * backlog is past its high mark the receivers hold their answers (never the store: the delivery is already
 * kept) until it falls back under the low mark, for at most `maxWaitMs`. Senders with a few connections in
 * flight then send at the rate routing keeps up with; a vendor's deadline is never at risk, since no answer
 * waits longer than `maxWaitMs`.
 */
import type { Logger } from 'pino';

export interface BacklogOptions {
  /** Deliveries stored and not yet routed, fleet-wide (null when routing has not started). */
  pending(): Promise<number | null>;
  /** Answers wait from this backlog on... */
  readonly high: number;
  /** ...until it falls under this. */
  readonly low: number;
  readonly maxWaitMs: number;
  /** How often the backlog is read while answers wait (one reading serves every waiting answer). */
  readonly checkEveryMs: number;
  readonly logger?: Logger;
}

export const defaultBacklog = { high: 1_000, low: 250, maxWaitMs: 2_000, checkEveryMs: 25 } as const;

export class RoutingBacklog {
  private reading: { at: number; value: Promise<number> } | null = null;
  private last = 0;
  private holding = false;

  constructor(private readonly opts: BacklogOptions) {}

  /** Whether answers are being held (routing past its high mark, not yet back under its low one). */
  get behind(): boolean {
    return this.holding;
  }

  /** The backlog, read at most once per `maxAgeMs` however many answers ask. */
  private read(maxAgeMs: number): Promise<number> {
    const now = performance.now();
    if (this.reading === null || now - this.reading.at >= maxAgeMs) {
      const value = this.opts.pending().then(
        (n) => (this.last = n ?? 0),
        () => (this.last = 0), // An unreadable backlog never holds an answer.
      );
      this.reading = { at: now, value };
    }
    return this.reading.value;
  }

  /** Resolves at once while routing keeps up; else when it has caught up, or after `maxWaitMs`. */
  async wait(): Promise<void> {
    // While routing keeps up, an answer never waits for a reading: the last one decides, refreshed behind.
    if (!this.holding) {
      void this.read(this.opts.checkEveryMs * 10);
      if (this.last < this.opts.high) return;
      this.holding = true;
      this.opts.logger?.warn(
        { event: 'webhook_backpressure', backlog: this.last, high: this.opts.high },
        'routing is behind: answers wait for it',
      );
    }
    const deadline = performance.now() + this.opts.maxWaitMs;
    let backlog = await this.read(this.opts.checkEveryMs);
    while (backlog >= this.opts.low && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, this.opts.checkEveryMs));
      backlog = await this.read(this.opts.checkEveryMs);
    }
    if (this.holding && backlog < this.opts.low) {
      this.holding = false;
      this.opts.logger?.info({ event: 'webhook_backpressure_released', backlog }, 'routing caught up');
    }
  }
}
