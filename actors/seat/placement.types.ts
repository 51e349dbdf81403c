/** The contract of seat placement (placement.ts): its options, what it needs of the seats' hosts, its handle. */
import type { Logger } from 'pino';
import type { Bus, Kv } from '../../bus/index.js';

export interface PlacementOptions {
  readonly coord: Kv;
  readonly nodeId: string;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** How long a lease binds without renewal; default 30 s. */
  readonly ttlMs?: number;
  /** Renewal period of the shared timer; default a third of the ttl. */
  readonly renewEveryMs?: number;
  /** The hosts of held seats, so an idle one can be handed over; without it no held seat moves. */
  readonly hosts?: SeatHosts;
  /**
   * How long before a lease expires for its peers this node stops the seat (covers one renewal round
   * trip and the skew between nodes' wall clocks); default a sixth of the ttl.
   */
  readonly fenceMarginMs?: number;
  /**
   * The bus this process answers on while it lives, and asks whether the holder of a live lease under
   * this node's id still lives (actors/lease/holder.ts). Without it such a lease is waited out.
   */
  readonly bus?: Pick<Bus, 'request' | 'reply'>;
  /**
   * False while the fleet withholds this node's admission (another process writes its node id): no seat
   * lease is taken meanwhile; the held ones are kept and renewed. Default always admitted.
   */
  readonly admitted?: () => boolean;
  /** A monotonic clock in ms (default `performance.now`); tests move it by hand. */
  readonly monotonic?: () => number;
}

/** What balancing needs from the node running the seats. */
export interface SeatHosts {
  /** True when the seat runs no turn (or has no host): it may move now. */
  idle(handle: string): boolean;
  /** Stops the seat's host; it no longer takes wakes. */
  stop(handle: string): Promise<void>;
  /**
   * Called at once when the seat's lease could not be proven in time: the host must stop every
   * effect now (its lease may be a peer's soon). Not awaited; placement has forgotten the seat.
   */
  fence?(handle: string): void;
}

export interface Placement {
  /** The agent seats of the applied company: takes what it may, releases seats no longer wanted. */
  want(handles: readonly string[]): Promise<void>;
  /** Handles whose lease this node holds and can still prove (not past its fence). */
  held(): string[];
  /** The fencing epoch of a seat this node may act for now, or null (not held, or past its fence). */
  epoch(handle: string): number | null;
  /** Seats held whose last proof is older than one renewal period: seat → seconds since it. */
  unproven(): Record<string, number>;
  /** Called (not awaited) whenever the held set changed. */
  onChange(listener: () => void): void;
  /**
   * Stops the timer and the watch. With `release` (the default, a graceful stop) the leases end now
   * so a peer takes over at once; without, they are left to expire (what a crashed process leaves).
   */
  stop(opts?: { release?: boolean }): Promise<void>;
}
