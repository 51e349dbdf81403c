/** What every work command (an item or file write, a retention gesture) refuses before it decides anything. */
import { isOpId, type WorkRefused } from '../../schema/index.js';
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
