import { newEvent } from '../../../bus/index.js';
import t from 'tap';
import {
  applyScheduleEvent,
  emptySchedulesState,
  recentRuns,
  schedulesAnswer,
} from '../../../projections/index.js';
import {
  Company,
  EventCategory,
  resolveSchedules,
  SchedulesAnswer,
  type LedgerRow,
} from '../../../schema/index.js';
import { scheduledCompany } from '../../fixtures/schedules/company.js';

const row = (minute: number, over: Partial<LedgerRow> = {}): LedgerRow => ({
  scope_type: 'unit',
  scope_id: 'Engineering',
  schedule_name: 'standup',
  target_handle: 'alice',
  scheduled_at: `2026-01-05T08:${String(minute).padStart(2, '0')}:00.000Z`,
  fired_at: `2026-01-05T08:${String(minute).padStart(2, '0')}:00.000Z`,
  outcome: 'fired',
  ...over,
});
const fired = (payload: LedgerRow) =>
  newEvent({
    type: 'schedule_fired',
    category: EventCategory.System,
    source: 'node-0/scheduler',
    summary: 's',
    actor: 'scheduler',
    payload,
  });

t.test('ledger rows are listed newest first, whatever order they arrive in', async (t) => {
  const state = emptySchedulesState();
  [3, 1, 2].forEach((m, i) => applyScheduleEvent(state, fired(row(m)), i + 1));
  t.same(
    recentRuns(state).map((r) => r.fired_at.slice(14, 16)),
    ['03', '02', '01'],
  );
});

t.test('rows fired in the same instant are ordered by stream sequence, newest first', async (t) => {
  const state = emptySchedulesState();
  applyScheduleEvent(state, fired(row(1, { target_handle: 'alice' })), 1);
  applyScheduleEvent(state, fired(row(1, { target_handle: 'bob' })), 2);
  t.same(
    recentRuns(state).map((r) => r.target_handle),
    ['bob', 'alice'],
  );
});

t.test('the list is bounded: only the newest rows are kept', async (t) => {
  const state = emptySchedulesState(3);
  for (let m = 0; m < 10; m++) applyScheduleEvent(state, fired(row(m)), m + 1);
  applyScheduleEvent(state, fired(row(0, { target_handle: 'late' })), 11);
  t.same(
    recentRuns(state).map((r) => r.fired_at.slice(14, 16)),
    ['09', '08', '07'],
  );
});

t.test('other event types, malformed payloads and a repeated sequence are skipped', async (t) => {
  const state = emptySchedulesState();
  applyScheduleEvent(state, { ...fired(row(1)), type: 'agent_turn_completed' }, 1);
  applyScheduleEvent(state, fired({ ...row(1), outcome: 'exploded' } as unknown as LedgerRow), 2);
  applyScheduleEvent(state, null, 3);
  applyScheduleEvent(state, fired(row(2)), 4);
  applyScheduleEvent(state, fired(row(2)), 4);
  t.equal(recentRuns(state).length, 1);
});

t.test('replaying the same events from zero gives the same answer', async (t) => {
  const events = [5, 1, 4, 2, 3].map((m) => fired(row(m)));
  const once = emptySchedulesState();
  events.forEach((e, i) => applyScheduleEvent(once, e, i + 1));
  const again = emptySchedulesState();
  events.forEach((e, i) => applyScheduleEvent(again, JSON.parse(JSON.stringify(e)), i + 1));
  t.same(recentRuns(again), recentRuns(once));
});

t.test('the answer carries every schedule field with next_run at the request instant', async (t) => {
  const answer = schedulesAnswer(
    resolveSchedules(Company.parse(scheduledCompany())),
    emptySchedulesState(),
    new Date('2026-01-05T07:30:00Z'),
  );
  t.ok(SchedulesAnswer.safeParse(answer).success);
  t.same(Object.keys(answer.schedules[0]!).sort(), [
    'catchup',
    'cron',
    'enabled',
    'name',
    'next_run',
    'runners',
    'scope_id',
    'scope_type',
    'target',
    'task',
    'timeout_seconds',
    'timezone',
  ]);
  const later = schedulesAnswer(
    resolveSchedules(Company.parse(scheduledCompany())),
    emptySchedulesState(),
    new Date('2026-01-05T08:30:00Z'),
  );
  const standup = (a: typeof answer) => a.schedules.find((s) => s.name === 'standup')?.next_run;
  t.equal(standup(answer), '2026-01-05T08:00:00.000Z');
  t.equal(standup(later), '2026-01-06T08:00:00.000Z', 'computed anew for each request');
  t.same(answer.recent_runs, []);
});
