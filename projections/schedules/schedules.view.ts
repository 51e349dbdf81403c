/**
 * One node's schedules read model, kept by the runner: the `schedules` projection folds the
 * `schedule_fired` events still in SVC_EVENTS (30 days), then follows the tail.
 */
import type { Logger } from 'pino';
import { Streams, Subjects, type Bus } from '../../bus/index.js';
import { SCHEDULE_FIRED } from '../../schema/index.js';
import { decodeJson } from '../runner/decode-json.js';
import { runProjection, type Projection, type RunningProjection } from '../runner/runner.js';
import { applyScheduleEvent, emptySchedulesState, type SchedulesState } from './schedules.projection.js';

export interface ScheduleRunsView {
  /** The current state (a rebuild replaces it). */
  readonly state: SchedulesState;
  /** Resolves true once `predicate` holds (checked on every change), false after `timeoutMs`. */
  until(predicate: (state: SchedulesState) => boolean, timeoutMs: number): Promise<boolean>;
  /** Called after every new row. */
  onChange(listener: (state: SchedulesState) => void): () => void;
  readonly running: RunningProjection<SchedulesState>;
  stop(): Promise<void>;
}

/** The `schedules` projection: the newest `limit` ledger rows. */
export function schedulesProjection(limit?: number): Projection<SchedulesState> {
  return {
    name: 'schedules',
    version: 1,
    stream: Streams.Events,
    subjects: Subjects.event(SCHEDULE_FIRED),
    init: () => emptySchedulesState(limit),
    apply: (state, message) => {
      applyScheduleEvent(state, decodeJson(message.data), message.seq);
    },
  };
}

export async function followScheduleRuns(opts: {
  bus: Bus;
  logger: Logger;
  limit?: number;
}): Promise<ScheduleRunsView> {
  const running = await runProjection({
    bus: opts.bus,
    projection: schedulesProjection(opts.limit),
    logger: opts.logger,
  });
  return {
    get state() {
      return running.state();
    },
    until: (predicate, timeoutMs) => running.when(predicate, timeoutMs),
    onChange: (listener) => running.onChange(listener),
    running,
    stop: () => running.stop(),
  };
}
