/**
 * Why a running turn was cut without ending: the node shuts down (its drain's grace ran out), it lost
 * the seat's lease, or an operator paused the seat with `stop_running`. A cut is not a failure and not an operator's stop: the phase records nothing, the
 * wake stays unacknowledged, and the next holder (or, after a pause, the
 * resumed seat) resumes the turn from its journal.
 */
export const CutReason = {
  /** The node was told to stop and the turn did not finish within the drain's grace. */
  Shutdown: 'shutdown',
  /** The node can no longer prove the seat's lease: a peer may hold it now. */
  LeaseLost: 'lease_lost',
  /** An operator paused the seat with `stop_running`: the turn resumes here once the seat is resumed. */
  Paused: 'paused',
} as const;
export type CutReason = (typeof CutReason)[keyof typeof CutReason];

const messages: Record<CutReason, string> = {
  shutdown: 'the node is shutting down; the turn is handed over to resume',
  lease_lost: 'the seat lease was lost; the turn is handed over to resume',
  paused: 'the turn was stopped by a pause; it resumes when the seat is resumed',
};

/** The abort reason of a cut turn's signal (an Error, so a tool server is told its message). */
export class TurnCut extends Error {
  override name = 'TurnCut';
  constructor(readonly reason: CutReason) {
    super(messages[reason]);
  }
}

/** Whether the turn's signal fired for a cut (not a stop, a deadline or a pause). */
export const isCut = (signal: AbortSignal): boolean => signal.aborted && signal.reason instanceof TurnCut;
