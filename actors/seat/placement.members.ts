/**
 * The `seats` nodes sharing placement (placement.ts): this node's member record
 * (`seats.member.<node>`), the peers' records as the watch delivers them, and the counts the spreading
 * and balancing rules take from them.
 */
import type { Logger } from 'pino';
import type { Kv, KvEntry } from '../../bus/index.js';
import type { DutyLease } from '../../schema/index.js';
import { decodeLease, encodeLease, leaseLive } from '../lease/index.js';
import { memberPrefix, placementKeys } from './placement.view.js';

export interface SeatsMembers {
  /** Live `seats` nodes, this one included. */
  live(nowMs: number): number;
  /** Live peers holding fewer of `leases` than `share`. */
  peersUnder(share: number, nowMs: number, leases: Iterable<DutyLease>): number;
  /** Writes this node's member record, live for one ttl from `at`. */
  put(at: Date): Promise<void>;
  /** Takes a member key's watch entry; true when a peer left. */
  apply(entry: KvEntry): boolean;
  sweep(nowMs: number): Promise<void>;
  /** Deletes this node's member record (a graceful stop). */
  remove(): Promise<void>;
}

export function trackMembers(opts: {
  readonly kv: Kv;
  readonly nodeId: string;
  readonly instance: string;
  readonly ttl: number;
  readonly log: Logger;
}): SeatsMembers {
  const { kv, nodeId, instance, ttl, log } = opts;
  /** Live `seats` nodes: node → member record expiry (ms). */
  const members = new Map<string, number>();

  return {
    live: (nowMs) => {
      let count = 1;
      for (const [node, expires] of members) if (node !== nodeId && expires > nowMs) count += 1;
      return count;
    },

    peersUnder: (share, nowMs, leases) => {
      const counts = new Map<string, number>();
      for (const [node, expires] of members) if (node !== nodeId && expires > nowMs) counts.set(node, 0);
      for (const lease of leases) {
        const count = counts.get(lease.node);
        if (count !== undefined && leaseLive(lease, nowMs)) counts.set(lease.node, count + 1);
      }
      let under = 0;
      for (const count of counts.values()) if (count < share) under += 1;
      return under;
    },

    put: async (at) => {
      const record: DutyLease = {
        duty: 'seats.member',
        node: nodeId,
        instance,
        epoch: 1,
        acquired_at: at.toISOString(),
        renewed_at: at.toISOString(),
        expires_at: new Date(at.getTime() + ttl).toISOString(),
      };
      await kv.put(placementKeys.member(nodeId), encodeLease(record));
    },

    apply: (entry) => {
      if (!entry.key.startsWith(memberPrefix)) return false;
      const node = entry.key.slice(memberPrefix.length);
      const record = entry.operation === 'delete' ? null : decodeLease(entry.value);
      if (record) {
        members.set(node, new Date(record.expires_at).getTime());
        return false;
      }
      members.delete(node);
      return true;
    },

    /**
     * Removes the member record of a node gone for ten lease periods (a crash leaves it behind), so the
     * coordination store does not keep one per node id ever seen. Removed only if unchanged since it was
     * read: a node coming back rewrites it first.
     */
    sweep: async (nowMs) => {
      for (const [node, expires] of members) {
        if (node === nodeId || expires > nowMs - 10 * ttl) continue;
        const key = placementKeys.member(node);
        const entry = await kv.get(key);
        const record = entry ? decodeLease(entry.value) : null;
        if (entry && record && new Date(record.expires_at).getTime() > nowMs - 10 * ttl) {
          members.set(node, new Date(record.expires_at).getTime());
          continue;
        }
        members.delete(node);
        if (entry)
          await kv
            .delete(key, { expectedRevision: entry.revision })
            .then(() => log.info({ member: node }, 'stale seats member record removed'))
            .catch(() => undefined);
      }
    },

    remove: () =>
      kv
        .delete(placementKeys.member(nodeId))
        .catch((error: unknown) => log.error({ err: error }, 'seats member record removal failed')),
  };
}
