/**
 * The node's configuration decisions besides posture: which revision to apply next, and what an apply's
 * outcome leaves recorded and announced. Pure siblings of the node machine.
 */
import type { ApplyStatus, Posture } from '../../schema/index.js';
import type { AppliedRevision, NodeHistory } from './node.history.js';
import { PostureCause, type DivergedPosture } from './node.posture.js';

/** What the host ran: the apply outcome it reports back (`postponed`: the record was not readable yet). */
export const NodeApplyOutcome = {
  Applied: 'applied',
  Unchanged: 'unchanged',
  RolledBack: 'rolled_back',
  RollbackFailed: 'rollback_failed',
  Unopenable: 'unopenable',
  Postponed: 'postponed',
} as const;
export type NodeApplyOutcome = (typeof NodeApplyOutcome)[keyof typeof NodeApplyOutcome];

/** The `apply` effect: run this revision's payload through the subsystems. */
export interface ApplyRequest extends AppliedRevision {
  /**
   * True when a restarted node brings back the revision it served before a failed epoch: nothing is
   * announced, and the recorded posture holds once it is back.
   */
  readonly restore: boolean;
}

/** The `announce` effect: this node's outcome of applying one activation (`svc.config.revision_applied`). */
export interface Announcement extends AppliedRevision {
  readonly status: ApplyStatus;
  readonly applied_subsystems: readonly string[];
  readonly error?: string;
  readonly posture?: DivergedPosture;
}

export interface ActiveEpoch {
  readonly epoch: number;
  readonly revision_id: string;
}

/** What the plan reads of the node's context. */
export interface PlanGiven {
  /** The epoch this process runs (0: nothing applied yet). */
  readonly appliedEpoch: number;
  /** The node's own announcements folded: recorded ones from before a restart, then this process's. */
  readonly history: NodeHistory;
}

/**
 * The next apply, or null. A newer active epoch is applied unless its apply already failed on this node
 * (a node that serves waits for the next activation). A node that runs nothing while its history ends in a
 * failure at the active epoch after an older applied one (a restart, or a failed first apply after one)
 * brings back the revision it last applied instead of trying the failed one again. A node that runs nothing
 * and has nothing to bring back (its own last-applied epoch failed, or it never applied one) tries the
 * active epoch again on every tick: it is `stuck` until one succeeds.
 */
export function nextApply(given: PlanGiven, active: ActiveEpoch | null): ApplyRequest | null {
  if (active === null) return null;
  const { applied, failed } = given.history;
  if (given.appliedEpoch === 0 && applied && failed && failed.epoch > applied.epoch) {
    if (failed.epoch >= active.epoch)
      return { epoch: applied.epoch, revision_id: applied.revision_id, restore: true };
  }
  if (active.epoch <= given.appliedEpoch) return null;
  if (failed && active.epoch <= failed.epoch && given.appliedEpoch > 0) return null;
  return { epoch: active.epoch, revision_id: active.revision_id, restore: false };
}

/** A failed apply of `epoch` leaves a revision to serve: the one running, or one a restore brings back. */
export const hasFallback = (given: PlanGiven, epoch: number): boolean =>
  given.appliedEpoch > 0 || (given.history.applied !== null && given.history.applied.epoch < epoch);

/** How the posture table reads an outcome. */
export function causeOf(outcome: NodeApplyOutcome): PostureCause {
  switch (outcome) {
    case NodeApplyOutcome.Applied:
    case NodeApplyOutcome.Unchanged:
      return PostureCause.ApplySucceeded;
    case NodeApplyOutcome.RolledBack:
      return PostureCause.RolledBack;
    case NodeApplyOutcome.RollbackFailed:
      return PostureCause.RollbackFailed;
    case NodeApplyOutcome.Unopenable:
      return PostureCause.Unopenable;
    case NodeApplyOutcome.Postponed:
      return PostureCause.Postponed;
  }
}

export const succeeded = (outcome: NodeApplyOutcome): boolean =>
  outcome === NodeApplyOutcome.Applied || outcome === NodeApplyOutcome.Unchanged;

/** The announcement of a concluded apply (never of a restore or a postponed one). */
export function announcementOf(
  request: AppliedRevision,
  outcome: NodeApplyOutcome,
  subsystems: readonly string[],
  error: string | undefined,
  posture: Posture,
): Announcement {
  if (succeeded(outcome)) {
    return {
      epoch: request.epoch,
      revision_id: request.revision_id,
      status: outcome === NodeApplyOutcome.Unchanged ? 'unchanged' : 'applied',
      applied_subsystems: [...subsystems],
    };
  }
  return {
    epoch: request.epoch,
    revision_id: request.revision_id,
    status: 'failed',
    applied_subsystems: [...subsystems],
    ...(error !== undefined ? { error } : {}),
    ...(posture === 'isolated' || posture === 'stuck' || posture === 'shed' ? { posture } : {}),
  };
}
