/**
 * How many times a turn has called each tool so far, counted in turn order across its phases and
 * iterations; a call refused for its arguments ran nothing and is not counted. A resumed turn counts what
 * its journal shows: the calls of phases an earlier run finished, and those its running phase replays, so a
 * per-turn cap (`memory_recall`'s) gives no fresh allowance after a restart.
 */
import type { PhaseRecord } from './turn.journal.js';
import { ranNothing, type ToolRun } from './turn.tools.js';

export class TurnCalls {
  private readonly made = new Map<string, number>();

  /** The calls of `name` the turn made so far (the one about to run is not among them). */
  before(name: string): number {
    return this.made.get(name) ?? 0;
  }

  /** A call answered, live or replayed: counted unless it was refused for its arguments. */
  settled(execution: ToolRun['execution']): void {
    if (!ranNothing(execution)) this.made.set(execution.name, this.before(execution.name) + 1);
  }

  /** A phase an earlier run finished is not replayed: its recorded calls count here instead. */
  finished(phase: PhaseRecord): void {
    for (const { result } of phase.calls.values()) if (result) this.settled(result.execution);
  }
}
