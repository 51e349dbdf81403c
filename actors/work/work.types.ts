/** The shapes the work writer's decisions and effects share (work.decide.ts, work.effects.ts). */
import type { WorkProject, WorkRecord, WorkState } from '../../schema/index.js';

export interface WorkContext {
  readonly projects: readonly WorkProject[];
  /** Seat handle -> kind, from the active document. */
  readonly seats: ReadonlyMap<string, 'agent' | 'human'>;
  /** `notification_rate_limit`: comment wakes per seat per minute, shared with the webhook router; 0 = none. */
  readonly notificationRateLimit?: number;
}

export interface Problem {
  readonly path: string;
  readonly message: string;
  /** The spec's problem kind; `invalid` when not given. */
  readonly kind?: 'missing' | 'unknown_value' | 'out_of_range' | 'conflict' | 'invalid';
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
  /** Why the state cannot be trusted (a trimmed log and no snapshot), or null; absent: always null. */
  unavailable?(): string | null;
  /** Where a trim writes the snapshot that stands for what it removes (ops "Retention"). */
  readonly snapshots?: SnapshotWriter;
}

/** Work snapshots on the bus, as the trim writes and prunes them. */
export interface SnapshotWriter {
  write(
    state: WorkState,
    by: string,
    now: Date,
  ): Promise<{ seq: number; generation: number; sha256: string; size: number }>;
  /** Removes the snapshots below `seq`. */
  prune(seq: number): Promise<number>;
}
