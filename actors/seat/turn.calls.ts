/**
 * How many times a turn has called each tool so far, counted in turn order across its phases and
 * iterations. A resumed turn counts what its journal shows: the calls of phases an earlier run finished,
 * and those its running phase replays, so a per-turn cap (`memory_recall`'s) gives no fresh allowance
 * after a restart.
 */
import type { PhaseRecord } from './turn.journal.js';

export class TurnCalls {
  private readonly made = new Map<string, number>();

  /** The calls of `name` the turn made before this one; this one is counted. */
  take(name: string): number {
    const before = this.made.get(name) ?? 0;
    this.made.set(name, before + 1);
    return before;
  }

  /** A phase an earlier run finished is not replayed: its recorded calls count here instead. */
  finished(phase: PhaseRecord): void {
    for (const { result } of phase.calls.values()) if (result) this.take(result.execution.name);
  }
}
