/** The shapes the work writer's decisions and effects share (work.decide.ts, work.effects.ts). */
import type { WorkProject, WorkRecord, WorkState } from '../../schema/index.js';

export interface WorkContext {
  readonly projects: readonly WorkProject[];
  /** Seat handle -> kind, from the active document. */
  readonly seats: ReadonlyMap<string, 'agent' | 'human'>;
}

export interface Problem {
  readonly path: string;
  readonly message: string;
}

export interface Refusal {
  readonly refused: { readonly error: string; readonly detail: string; readonly problems: Problem[] };
}

/** A task lifecycle event the write sets off (spec "Events": TaskCreated, TaskAssigned, …). */
export interface TaskEvent {
  readonly type: 'TaskCreated' | 'TaskAssigned' | 'TaskCompleted' | 'TaskDelegated';
  readonly summary: string;
  /** The seat concerned (an assignee), when there is one. */
  readonly seat: string | null;
  readonly payload: Record<string, unknown>;
}

export interface Accepted {
  readonly project: string;
  readonly record: WorkRecord;
}

export interface Fresh {
  readonly id: string;
  readonly commentId: string;
  readonly now: Date;
}

/** The work projection as the writer needs it. */
export interface WorkStateView {
  state(): WorkState;
  /** Resolves true once the state reflects at least `seq`. */
  until(seq: number, timeoutMs: number): Promise<boolean>;
}
