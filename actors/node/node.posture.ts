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
  /** The posture held when the running apply started (what a postponed apply returns to). */
  readonly before: Posture;
}

/**
 * The table. An unconfigured node has no revision to fall back to, so a failed first apply leaves its
 * posture `serve` (its status reads `unconfigured` first anyway); a lag sheds only a node that serves.
 */
export function nextPosture(given: PostureGiven, cause: PostureCause): Posture {
  switch (cause) {
    case PostureCause.ApplyStarted:
      return 'wait';
    case PostureCause.ApplySucceeded:
      return 'serve';
    case PostureCause.RolledBack:
      return given.configured ? 'isolated' : 'serve';
    case PostureCause.RollbackFailed:
    case PostureCause.Unopenable:
      return given.configured ? 'stuck' : 'serve';
    case PostureCause.Postponed:
      return given.before;
    case PostureCause.Lagged:
      return given.configured && given.posture === 'serve' ? 'shed' : given.posture;
  }
}

/** Postures an apply failure leaves behind: the ones a restart restores with the prior revision. */
export type DivergedPosture = Extract<Posture, 'shed' | 'isolated' | 'stuck'>;
