/**
 * Whether a seat learns (keeps personal memories, records episodes): the org `learning.enabled` and the
 * seat's `learning_enabled`, both on unless set to false, and both must be on. The org flag is read from
 * the first document applied and kept until restart (spec: learning config changes are stored for the
 * next restart only); the seat flag is a seat field and follows every apply.
 */
import { seatIdentity } from '../../../schema/index.js';
import { isRecord, type JsonObject as Json } from '../../../schema/index.js';

export interface LearningGate {
  enabled(seat: string): boolean;
}

function orgLearning(document: Json): boolean {
  const learning = document['learning'];
  return !(isRecord(learning) && learning['enabled'] === false);
}

/** The raw seat entry of a handle (roots and units at any depth), or null. */
function seatEntry(document: Json, handle: string): Json | null {
  const found = (list: unknown): Json | null => {
    if (!Array.isArray(list)) return null;
    for (const seat of list) if (isRecord(seat) && seatIdentity(seat) === handle) return seat;
    return null;
  };
  const inUnits = (units: unknown): Json | null => {
    if (!Array.isArray(units)) return null;
    for (const unit of units) {
      if (!isRecord(unit)) continue;
      const seat = found(unit['roles']) ?? inUnits(unit['children']);
      if (seat) return seat;
    }
    return null;
  };
  return found(document['roles']) ?? inUnits(document['units']);
}

/** The gate a config apply feeds (`apply` with each applied document); `warn` hears a change left for restart. */
export function createLearningGate(warn?: (message: string) => void): LearningGate & {
  apply(document: unknown): void;
} {
  let document: Json | null = null;
  let org: boolean | null = null;
  return {
    apply(next) {
      document = isRecord(next) ? next : null;
      if (document === null) return;
      const wanted = orgLearning(document);
      if (org === null) org = wanted;
      else if (wanted !== org)
        warn?.(`learning.enabled changed to ${String(wanted)}; it takes effect at the next restart`);
    },
    enabled(seat) {
      if (document === null || org !== true) return false;
      return seatEntry(document, seat)?.['learning_enabled'] !== false;
    },
  };
}
