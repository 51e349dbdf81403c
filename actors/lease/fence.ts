import { LEASE_EPOCH_HEADER } from '../../schema/index.js';

/**
 * The fence a lease holder checks before each effect it makes as the holder (a model call, a tool
 * call, a write): synchronous, so a process resumed from a pause refuses before anything reaches the
 * bus (DESIGN.md "A lease holder fences itself").
 */
export class LeaseFencedError extends Error {
  override readonly name = 'LeaseFencedError';
  constructor(
    readonly duty: string,
    /** The epoch the refused work was started under, when known. */
    readonly epoch: number | null,
  ) {
    super(
      `${duty}: the lease${epoch === null ? '' : ` of epoch ${epoch}`} is no longer provably held here; the work stops`,
    );
  }
}

/** Throws `LeaseFencedError` when the work may no longer act as the holder. */
export type Fence = () => void;

/** A fence over `current` (the epoch this node may act under now, or null) for work started at `epoch`. */
export function fenceOf(duty: string, epoch: number, current: () => number | null): Fence {
  return () => {
    if (current() !== epoch) throw new LeaseFencedError(duty, epoch);
  };
}

/**
 * The headers every record written as a lease holder carries: the epoch it acts under (the fencing token),
 * so a reader can tell a superseded holder's late record from the current holder's (schema/lease-epoch.ts).
 */
export function leaseHeaders(epoch: number | undefined): Record<string, string> | undefined {
  return epoch === undefined ? undefined : { [LEASE_EPOCH_HEADER]: String(epoch) };
}

/** A fence that never refuses (a single process owns everything). */
export const noFence: Fence = () => undefined;
