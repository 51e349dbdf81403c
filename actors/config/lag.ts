/**
 * Posture lag (spec "Node configuration state": a node that lags on the fleet epoch more than 45 s while a
 * peer has it is shed; health `stall_lag_seconds` only when behind). The fleet epoch is the active
 * pointer's; a peer "has it" once it announced an apply at that epoch (or a newer one) that did not fail,
 * as the revision table holds it (rebuilt from SVC_CONFIG, so a restart forgets no peer). The node's side
 * is its one applied epoch (the node machine's). A node alone has no peer to lag behind.
 */

/** How long a node may stay behind a peer that has the active epoch before it is shed. */
export const POSTURE_LAG_MS = 45_000;

export interface LagWatch {
  /**
   * Where this node stands: seconds behind (0 when not behind, or when no peer has the active epoch yet)
   * and whether that passed the posture lag. Call it on every reconcile tick.
   */
  check(activeEpoch: number, appliedEpoch: number): { readonly lagSeconds: number; readonly lagged: boolean };
}

export function createLagWatch(opts: {
  /** A peer applied the winner of `epoch` or of a newer one (the revision table's `peerApplied`). */
  readonly peerHas: (epoch: number) => boolean;
  readonly now?: () => number;
}): LagWatch {
  const now = opts.now ?? Date.now;
  /** Since when this node is behind a peer that has the active epoch (ms), or null. */
  let behindSince: number | null = null;
  return {
    check(activeEpoch, appliedEpoch) {
      if (appliedEpoch >= activeEpoch || !opts.peerHas(activeEpoch)) {
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
