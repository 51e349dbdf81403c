/**
 * The keys of seat placement in `svc_coord`, and the fleet's seat leases as any node reads them (for
 * `/agents` placement and `/fleet`), without taking part in placement (placement.ts).
 */
import type { Kv } from '../../bus/index.js';
import type { DutyLease } from '../../schema/index.js';
import { decodeLease, leaseLive } from '../lease/index.js';

export const placementKeys = {
  seat: (handle: string): string => `seat.${handle}.lease`,
  /** Every seat lease (a handle is one key token). */
  seats: 'seat.*.lease',
  member: (node: string): string => `seats.member.${node}`,
  members: 'seats.member.>',
};
export const memberPrefix = 'seats.member.';

/** The handle a seat lease key names, or null. */
export function seatOfLeaseKey(key: string): string | null {
  const match = /^seat\.([^.]+)\.lease$/.exec(key);
  return match ? match[1]! : null;
}

/** The fleet's seat leases as one node reads them: a seat is placed while some node's lease is live. */
export interface PlacementView {
  placed(handle: string): boolean;
  /** Live holders, handle → node. */
  holders(): Map<string, string>;
  stop(): Promise<void>;
}

export async function watchPlacement(coord: Kv, now: () => Date = () => new Date()): Promise<PlacementView> {
  const leases = new Map<string, DutyLease>();
  const sub = await coord.watch(
    (entry) => {
      const handle = seatOfLeaseKey(entry.key);
      if (handle === null) return;
      const lease = entry.operation === 'delete' ? null : decodeLease(entry.value);
      if (lease) leases.set(handle, lease);
      else leases.delete(handle);
    },
    { key: placementKeys.seats },
  );
  return {
    placed: (handle) => {
      const lease = leases.get(handle);
      return lease !== undefined && leaseLive(lease, now().getTime());
    },
    holders: () => {
      const nowMs = now().getTime();
      const out = new Map<string, string>();
      for (const [handle, lease] of leases) if (leaseLive(lease, nowMs)) out.set(handle, lease.node);
      return out;
    },
    stop: () => sub.stop(),
  };
}
