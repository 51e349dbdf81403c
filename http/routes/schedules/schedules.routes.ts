/**
 * `GET /schedules` (spec "Schedule"): `{schedules[], recent_runs[]}` — every applied schedule with
 * every field of the spec and `next_run` computed per request, and the newest ledger rows.
 */
import type { SchedulesAnswer } from '../../../schema/index.js';
import type { RouteDef } from '../../types.js';

export interface ScheduleRouteDeps {
  /** The answer as of now (the same function answers the `schedules` question and snapshot section). */
  readonly answer: () => SchedulesAnswer;
}

export function scheduleRoutes(deps: ScheduleRouteDeps): RouteDef[] {
  // It reads no query parameter: any is 400 `bad_params` (as `/query/schedules` refuses it).
  return [
    {
      method: 'GET',
      pattern: '/schedules',
      query: [],
      handler: () => ({ status: 200, body: deps.answer() }),
    },
  ];
}
