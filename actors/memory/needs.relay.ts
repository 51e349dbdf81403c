/**
 * Where `ask_human` records a need: the builtin tools are built before the seats that own needs, so they
 * get this relay, which the seats runtime binds once it runs. Each seat keeps its open needs in its own
 * log (actors/seat/seat.log.ts); nothing is kept here.
 */
import type { Need, NeedsRecorder } from '../toolservers/index.js';

export interface NeedsRelay extends NeedsRecorder {
  /** Sends every need from now on to `target` (the seats runtime of this node). */
  bind(target: NeedsRecorder): void;
}

export function createNeedsRelay(): NeedsRelay {
  let target: NeedsRecorder | null = null;
  return {
    bind(next) {
      target = next;
    },
    recordNeed(seat: string, need: Need) {
      // A tool error for the model, never a crash: only a seat's turn calls ask_human.
      if (!target) return Promise.reject(new Error('no seat runs on this node to record the need'));
      return target.recordNeed(seat, need);
    },
    withdrawNeed(seat, id, key, turnId) {
      if (!target) return Promise.reject(new Error('no seat runs on this node to withdraw the question'));
      return target.withdrawNeed(seat, id, key, turnId);
    },
  };
}
