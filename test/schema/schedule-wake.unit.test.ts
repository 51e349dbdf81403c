import t from 'tap';
import {
  isScheduledTimeoutBreached,
  ScheduledTimeoutBreach,
  scheduledDeadline,
  scheduledTimeoutBreach,
  ScheduleWake,
} from '../../schema/index.js';

const wake = (timeout: number | null): ScheduleWake =>
  ScheduleWake.parse({
    scope_type: 'role',
    scope_id: 'eve',
    schedule_name: 'sweep',
    task: 'Sweep',
    target: 'each',
    scheduled_at: '2026-01-01T05:00:00.000Z',
    fired_at: '2026-01-01T05:00:02.000Z',
    timeout_seconds: timeout,
    deadline: scheduledDeadline('2026-01-01T05:00:02.000Z', timeout)?.toISOString() ?? null,
  });

t.test(
  'the deadline of a scheduled turn is fired_at plus timeout_seconds, none without a timeout',
  async (t) => {
    t.equal(wake(90).deadline, '2026-01-01T05:01:32.000Z');
    t.equal(wake(null).deadline, null);
  },
);

t.test('a scheduled turn breaches only after its deadline', async (t) => {
  t.equal(isScheduledTimeoutBreached(wake(90), new Date('2026-01-01T05:01:32.000Z')), false);
  t.equal(isScheduledTimeoutBreached(wake(90), new Date('2026-01-01T05:01:32.001Z')), true);
  t.equal(isScheduledTimeoutBreached(wake(null), new Date('2099-01-01T00:00:00Z')), false);
});

t.test('the guard breach payload has kind scheduled_timeout and names the schedule and target', async (t) => {
  const at = new Date('2026-01-01T05:02:00.000Z');
  const breach = scheduledTimeoutBreach(wake(90), { targetHandle: 'eve', turnId: 'turn-1', at });
  t.ok(ScheduledTimeoutBreach.safeParse(breach).success);
  t.match(breach, {
    kind: 'scheduled_timeout',
    turn_id: 'turn-1',
    target_handle: 'eve',
    schedule_name: 'sweep',
    timeout_seconds: 90,
    deadline: '2026-01-01T05:01:32.000Z',
    at: '2026-01-01T05:02:00.000Z',
  });
  t.equal(scheduledTimeoutBreach(wake(null), { targetHandle: 'eve', turnId: null, at }), null);
});
