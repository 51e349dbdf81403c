/**
 * What a node had decided about its configuration, folded from its own apply announcements
 * (`svc.config.revision_applied` records in SVC_CONFIG that name it). A restarted node starts from this:
 * the revision it last applied, and a failed epoch after it with the posture that failure left.
 */
import { RevisionApplied, type Posture } from '../../schema/index.js';
import type { DivergedPosture } from './node.posture.js';

export interface AppliedRevision {
  readonly epoch: number;
  readonly revision_id: string;
}

export interface NodeHistory {
  /** The newest epoch this node applied (or found unchanged); null when it never applied one. */
  readonly applied: AppliedRevision | null;
  /**
   * The newest failed epoch not older than `applied`, and the posture it left; null when none. One equal to
   * `applied` is a restarted node failing to apply its own last revision again (nothing to fall back to).
   */
  readonly failed: (AppliedRevision & { readonly posture: DivergedPosture }) | null;
}

export const emptyNodeHistory: NodeHistory = { applied: null, failed: null };

const diverged = (posture: Posture | undefined): DivergedPosture =>
  posture === 'stuck' || posture === 'shed' ? posture : 'isolated';

/** Folds one record (malformed ones, and other nodes' ones, leave the history as it was). */
export function foldNodeHistory(history: NodeHistory, nodeId: string, record: unknown): NodeHistory {
  const parsed = RevisionApplied.safeParse(record);
  if (!parsed.success || parsed.data.node !== nodeId) return history;
  return recordOutcome(history, parsed.data);
}

/** One concluded apply of this node, folded. */
export function recordOutcome(
  history: NodeHistory,
  outcome: Pick<RevisionApplied, 'epoch' | 'revision_id' | 'status' | 'posture'>,
): NodeHistory {
  const { epoch, revision_id, status } = outcome;
  if (status === 'failed') {
    if (epoch < (history.applied?.epoch ?? 1) || epoch < (history.failed?.epoch ?? 0)) return history;
    // Records written before the posture was announced read as the common case, a rolled-back apply.
    return { ...history, failed: { epoch, revision_id, posture: diverged(outcome.posture) } };
  }
  if (epoch < (history.applied?.epoch ?? 0)) return history;
  return {
    applied: { epoch, revision_id },
    failed: history.failed && history.failed.epoch > epoch ? history.failed : null,
  };
}
