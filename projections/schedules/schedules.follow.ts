/**
 * Keeps one node's schedules read model current: replays the `schedule_fired` events still in
 * SVC_EVENTS (30 days), then follows the tail.
 */
import type { Logger } from 'pino';
import { Streams, Subjects, type Bus, type Subscription } from '../../bus/index.js';
import { SCHEDULE_FIRED } from '../../schema/index.js';
import { applyScheduleEvent, emptySchedulesState, type SchedulesState } from './schedules.projection.js';
import { Waiters } from '../runner/waiters.js';

export interface ScheduleRunsView {
  readonly state: SchedulesState;
  /** Resolves true once `predicate` holds (checked on every change), false after `timeoutMs`. */
  until(predicate: (state: SchedulesState) => boolean, timeoutMs: number): Promise<boolean>;
  /** Called after every new row. */
  onChange(listener: (state: SchedulesState) => void): () => void;
  stop(): Promise<void>;
}

const decoder = new TextDecoder();

function decode(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return null;
  }
}

export async function followScheduleRuns(opts: {
  bus: Bus;
  logger: Logger;
  limit?: number;
}): Promise<ScheduleRunsView> {
  const state = emptySchedulesState(opts.limit);
  const subject = Subjects.event(SCHEDULE_FIRED);
  const waiters = new Waiters(state);
  const listeners = new Set<(state: SchedulesState) => void>();
  const apply = (data: Uint8Array, seq: number): void => {
    applyScheduleEvent(state, decode(data), seq);
    for (const listener of listeners) {
      try {
        listener(state);
      } catch (error) {
        opts.logger.error({ err: error }, 'schedules listener failed');
      }
    }
    waiters.wake();
  };

  // 1. what is stored, then 2. the live tail from just after it
  const info = await opts.bus.streamInfo(Streams.Events);
  for await (const msg of opts.bus.replay(Streams.Events, { subject, toSeq: info.lastSeq }))
    apply(msg.data, msg.seq);
  const tail: Subscription = await opts.bus.follow(
    Streams.Events,
    { fromSeq: info.lastSeq + 1, subject },
    (msg) => apply(msg.data, msg.seq),
  );

  return {
    state,
    until: (predicate, timeoutMs) => waiters.until(predicate, timeoutMs),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      await tail.stop();
      waiters.clear();
      listeners.clear();
    },
  };
}
