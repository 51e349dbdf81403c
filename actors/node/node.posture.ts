/**
 * The node's configuration posture as a decision table (spec "Node configuration state"): the current
 * posture and what just happened give the next posture. Pure, so the table is specified row by row.
 */
import type { Posture } from '../../schema/index.js';

/** What happened to the node's configuration, as the posture table reads it. */
export const PostureCause = {
  /** An apply of a newer epoch (or the restore of the recorded one) starts. */
  ApplyStarted: 'apply.started',
  /** The apply ended applied, or found the payload unchanged. */
  ApplySucceeded: 'apply.succeeded',
  /** The apply failed and every subsystem it touched was rolled back: the prior revision serves. */
  RolledBack: 'apply.rolled_back',
  /** The apply failed and a rollback failed too: the node's state is neither revision. */
  RollbackFailed: 'apply.rollback_failed',
  /** The activated revision cannot be opened on this node (its key is missing): nothing ran. */
  Unopenable: 'apply.unopenable',
  /** The apply never started (the record was not readable yet); it is tried again later. */
  Postponed: 'apply.postponed',
  /** The node has lagged the fleet epoch more than 45 s while a peer has it. */
  Lagged: 'lagged',
} as const;
export type PostureCause = (typeof PostureCause)[keyof typeof PostureCause];

export interface PostureGiven {
  readonly posture: Posture;
  /** A revision has been applied on this node (it is serving, not unconfigured). */
  readonly configured: boolean;
  /**
   * A failed apply leaves a revision to serve: the one running, or on a restarted node one it applied
   * before the failed epoch (brought back next). False for a node with none, or whose own last-applied
   * epoch is the one failing.
   */
  readonly fallback: boolean;
  /** The posture held when the running apply started (what a postponed apply returns to). */
  readonly before: Posture;
}

/**
 * The table. A failed apply with no revision to fall back to is `stuck` (status reads `unconfigured` first):
 * such a node retries on every reconcile tick and stays `stuck` while a retry runs, so its alarm does not
 * clear and re-raise each time. A lag sheds only a node that serves.
 */
export function nextPosture(given: PostureGiven, cause: PostureCause): Posture {
  switch (cause) {
    case PostureCause.ApplyStarted:
      return !given.configured && given.posture === 'stuck' ? 'stuck' : 'wait';
    case PostureCause.ApplySucceeded:
      return 'serve';
    case PostureCause.RolledBack:
      return given.fallback ? 'isolated' : 'stuck';
    case PostureCause.RollbackFailed:
    case PostureCause.Unopenable:
      return 'stuck';
    case PostureCause.Postponed:
      return given.before;
    case PostureCause.Lagged:
      return given.configured && given.posture === 'serve' ? 'shed' : given.posture;
  }
}

/** Postures an apply failure leaves behind: the ones a restart restores with the prior revision. */
export type DivergedPosture = Extract<Posture, 'shed' | 'isolated' | 'stuck'>;
