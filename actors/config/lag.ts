/**
 * Posture lag (spec "Node configuration state": a node that lags on the fleet epoch more than 45 s while a
 * peer has it is shed; health `stall_lag_seconds` only when behind). The fleet epoch is the active
 * pointer's; a peer "has it" once it announced an apply at that epoch that did not fail
 * (`svc.config.revision_applied`). A node alone has no peer to lag behind.
 */
import { RevisionApplied } from '../../schema/index.js';

/** How long a node may stay behind a peer that has the active epoch before it is shed. */
export const POSTURE_LAG_MS = 45_000;

export interface LagWatch {
  /** Folds one `svc.config.revision_applied` announcement (malformed ones are skipped). */
  announced(message: unknown): void;
  /**
   * Where this node stands: seconds behind (0 when not behind, or when no peer has the active epoch yet)
   * and whether that passed the posture lag. Call it on every reconcile tick.
   */
  check(activeEpoch: number, appliedEpoch: number): { readonly lagSeconds: number; readonly lagged: boolean };
}

export function createLagWatch(opts: { readonly nodeId: string; readonly now?: () => number }): LagWatch {
  const now = opts.now ?? Date.now;
  /** The newest epoch each peer applied (or found unchanged). */
  const peers = new Map<string, number>();
  /** Since when this node is behind a peer that has the active epoch (ms), or null. */
  let behindSince: number | null = null;
  return {
    announced(message) {
      const parsed = RevisionApplied.safeParse(message);
      if (!parsed.success || parsed.data.node === opts.nodeId || parsed.data.status === 'failed') return;
      peers.set(parsed.data.node, Math.max(peers.get(parsed.data.node) ?? 0, parsed.data.epoch));
    },
    check(activeEpoch, appliedEpoch) {
      const peerHasIt = [...peers.values()].some((epoch) => epoch >= activeEpoch);
      if (appliedEpoch >= activeEpoch || !peerHasIt) {
        behindSince = null;
        return { lagSeconds: 0, lagged: false };
      }
      const at = now();
      behindSince ??= at;
      const behind = at - behindSince;
      return { lagSeconds: Math.floor(behind / 1000), lagged: behind > POSTURE_LAG_MS };
    },
  };
}
