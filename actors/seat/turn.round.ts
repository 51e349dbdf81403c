/**
 * What the two live steps of a phase round share: the phase's scope, and the writes a phase goes on without
 * waiting for. The steps: the model call (turn.round.model.ts: abort and budget first, then the call, then
 * its answer and spend record written together) and one tool call (turn.round.tool.ts: its result journaled
 * after it runs; its start before, unless it may simply run again). A retriable tool's result is written
 * behind: the next model call does not wait for it, the round record after that call does.
 */
import type { TraceSpan } from '../../schema/index.js';
import type { PhaseName, Turn } from './seat.machine.js';
import type { SeatProfile } from './seat.profile.js';
import type { TurnDeps } from './turn.deps.js';
import type { PhaseJournal } from './turn.journal.js';
import type { PhaseLive } from './turn.live.js';

/** The phase a round belongs to, as its steps need it. */
export interface RoundScope {
  readonly deps: TurnDeps;
  readonly turn: Turn;
  readonly phase: PhaseName;
  readonly seat: SeatProfile;
  readonly caps: { readonly org: number; readonly seat: number };
  readonly signal: AbortSignal;
  readonly journal: PhaseJournal;
  /** The phase's live view (`agent_turn_progress`): the call running now, the text being written. */
  readonly live: PhaseLive;
  /** The phase's span: model and tool call spans are its children. */
  readonly span: TraceSpan;
  /** Retriable tools' results being journaled while the next model call runs. */
  readonly results: WritesBehind;
}

/**
 * Writes a phase goes on without waiting for, waited for where a later step needs them: the tool results
 * before the next round's record and before the phase ends. A failed write fails the phase there as it
 * would have where it began.
 */
export class WritesBehind {
  private pending: Promise<unknown>[] = [];

  add(write: Promise<unknown>): void {
    write.catch(() => undefined); // observed by settle
    this.pending.push(write);
  }

  async settle(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    await Promise.all(pending);
  }
}

/** Waits for every write the phase went on without (see `WritesBehind`). */
export async function settleWrites(scope: RoundScope): Promise<void> {
  await scope.results.settle();
}
