/** What every work command (an item or file write, a retention gesture) refuses before it decides anything. */
import {
  canonicalId,
  isOpId,
  type WorkChange,
  type WorkOutcome,
  type WorkRefused,
} from '../../schema/index.js';
import type { WorkStateView } from './work.types.js';

/** The refusal, or null when the command may be decided. */
export function refusedBeforeDeciding(opId: string, view: WorkStateView): WorkRefused | null {
  if (!isOpId(opId))
    return {
      outcome: 'refused',
      error: 'op_id_invalid',
      detail: 'the op_id must be 1 to 128 bytes of visible ASCII',
      problems: [],
    };
  // A state that lacks what a trim removed decides nothing (a key counter would start again).
  const unavailable = view.unavailable?.();
  if (unavailable)
    return { outcome: 'refused', error: 'work_unavailable', detail: unavailable, problems: [] };
  return null;
}

/** The record kind each change appends: a repeat must be of the same kind as the first outcome. */
const kindOf = {
  create: 'item.created',
  update: 'item.updated',
  move: 'item.moved',
  comment: 'item.commented',
  purge: 'item.purged',
  file_put: 'file.put',
  file_delete: 'file.removed',
  person: 'person.changed',
} as const satisfies Record<WorkChange['kind'], WorkOutcome['kind']>;

/**
 * True when `change` is the same gesture as the one that first used its op_id: the same kind on the
 * same target (a create's project, an item, a file, a person). The rest may differ (a retry after a cut
 * may carry an edited body); anything else is another write that reused the op_id, refused
 * `op_id_reused` rather than answered with an outcome about something else.
 */
export function sameGesture(change: WorkChange, first: WorkOutcome): boolean {
  if (kindOf[change.kind] !== first.kind) return false;
  switch (change.kind) {
    case 'create':
      return first.key.startsWith(`${change.project}-`);
    case 'file_put':
    case 'file_delete':
      return first.id === `${change.project}/${change.path}`;
    case 'person':
      return first.id === change.handle;
    default:
      // Key or id, either in any case; a purged item is gone from the state, so compare the outcome.
      return canonicalId(change.item) === first.id || change.item.toUpperCase() === first.key;
  }
}

/** The refusal of a write whose op_id another gesture used first. */
export const opIdReused = (opId: string, first: WorkOutcome): WorkRefused => ({
  outcome: 'refused',
  error: 'op_id_reused',
  detail: `op_id "${opId}" was used by another write (${first.kind} of ${first.key}); a new change needs a new op_id`,
  problems: [],
});
