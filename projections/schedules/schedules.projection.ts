/**
 * The schedules read model: the most recent ledger rows, rebuilt from `schedule_fired` events
 * (payload = the ledger row), newest first and bounded; and the `/schedules` answer, which adds the
 * applied schedules with `next_run` computed at the moment of the request.
 */
import {
  EventRecord,
  LedgerRow,
  SCHEDULE_FIRED,
  scheduleView,
  type EffectiveSchedule,
  type SchedulesAnswer,
} from '../../schema/index.js';

/** Rows kept (and shown in `recent_runs`). */
export const RECENT_RUNS_LIMIT = 100;

interface Run {
  readonly row: LedgerRow;
  readonly firedAt: number;
  /** Stream sequence: orders rows fired in the same millisecond. */
  readonly seq: number;
}

/** Owned by one runner and updated in place. */
export interface SchedulesState {
  /** Newest first. */
  readonly runs: Run[];
  readonly limit: number;
}

export function emptySchedulesState(limit = RECENT_RUNS_LIMIT): SchedulesState {
  return { runs: [], limit };
}

/**
 * Folds one stored event (decoded JSON) at stream sequence `seq`. Anything but a well-formed
 * `schedule_fired` event is skipped: a read model never refuses history.
 */
export function applyScheduleEvent(state: SchedulesState, event: unknown, seq: number): SchedulesState {
  const record = EventRecord.safeParse(event);
  if (!record.success || record.data.type !== SCHEDULE_FIRED) return state;
  const row = LedgerRow.safeParse(record.data.payload);
  if (!row.success) return state;
  const run: Run = { row: row.data, firedAt: new Date(row.data.fired_at).getTime(), seq };
  if (state.runs.some((r) => r.seq === seq)) return state;
  const newer = (a: Run, b: Run): boolean =>
    a.firedAt > b.firedAt || (a.firedAt === b.firedAt && a.seq > b.seq);
  let at = state.runs.findIndex((existing) => newer(run, existing));
  if (at === -1) at = state.runs.length;
  if (at >= state.limit) return state;
  state.runs.splice(at, 0, run);
  if (state.runs.length > state.limit) state.runs.length = state.limit;
  return state;
}

export function recentRuns(state: SchedulesState): LedgerRow[] {
  return state.runs.map((r) => r.row);
}

/** `GET /schedules`: every applied schedule with `next_run` at `now`, and the recent runs. */
export function schedulesAnswer(
  schedules: readonly EffectiveSchedule[],
  state: SchedulesState,
  now: Date,
): SchedulesAnswer {
  return { schedules: schedules.map((s) => scheduleView(s, now)), recent_runs: recentRuns(state) };
}
