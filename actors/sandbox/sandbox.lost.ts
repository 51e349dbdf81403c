/**
 * Live runs whose node is lost (ops/sandboxes.md "Retention"). A live run's node stores its record again
 * daily; one whose newest record is NODE_LOST_MS old and whose node is not in the fleet (its presence
 * expired, or removed) has had no node watching it for that long. Any seats node records it `failed`,
 * saying so, so it ends and ages out like any ended run instead of holding the stream's trim back for as
 * long as its node stays away — forever, for a node that left for good.
 */
import type { SandboxRunRecord } from '../../schema/index.js';
import type { SandboxBackend } from './backend.js';
import { ENDED_RUN_KEEP_MS, isLive, type SandboxRecords } from './sandbox.records.js';

/** How long a live run's node may store nothing of it, away from the fleet, before the run counts as lost. */
const NODE_LOST_MS = ENDED_RUN_KEEP_MS;

const lostError = (node: string): string =>
  `its node ${node} was lost: gone from the fleet, it has not stored the run for ${Math.round(NODE_LOST_MS / 86_400_000)} days`;

export interface LostRun {
  readonly run: SandboxRunRecord;
  /**
   * When it counts as ended: its newest record's store time plus NODE_LOST_MS. The same on every node, so
   * two nodes that end it at once write the same record, event and wake (their ids derive from it).
   */
  readonly at: string;
  readonly error: string;
}

/**
 * Calls `end` for every live run of another node whose newest record is NODE_LOST_MS old at `nowMs` and
 * whose node is not on `roster` (the fleet's live nodes). While the fleet is unknown (no roster, or it
 * answers null) no run is taken as lost: a run of a node that is only unseen is never ended.
 */
export async function endLostRuns(
  records: SandboxRecords,
  self: string,
  nowMs: number,
  roster: (() => Promise<readonly string[] | null>) | undefined,
  end: (lost: LostRun) => Promise<unknown>,
): Promise<void> {
  const stale = records.all().filter((run) => {
    const storedAt = records.storedAt(run.sandbox_id);
    return run.node !== self && isLive(run) && storedAt !== undefined && nowMs - storedAt >= NODE_LOST_MS;
  });
  // Asked only when some run is that old: almost never.
  const fleet = stale.length > 0 && roster ? await roster() : null;
  if (fleet === null) return;
  for (const run of stale)
    if (!fleet.includes(run.node))
      await end({
        run,
        at: new Date((records.storedAt(run.sandbox_id) ?? nowMs) + NODE_LOST_MS).toISOString(),
        error: lostError(run.node),
      });
}

/**
 * A node back after its runs ended as lost stops whatever of them still runs on its machine (checked to be
 * the run's, as every stop is), as it would any ended run: its records say the run is over.
 */
export function stopLostRuns(records: SandboxRecords, self: string, backend: SandboxBackend): void {
  for (const run of records.all())
    if (run.node === self && run.status === 'failed' && run.error === lostError(self) && run.workdir !== null)
      backend.stop({ workdir: run.workdir, pid: run.pid }).catch(() => undefined);
}
