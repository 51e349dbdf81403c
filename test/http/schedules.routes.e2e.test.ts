import t from 'tap';
import { scheduleRoutes } from '../../http/index.js';
import { followScheduleRuns, schedulesAnswer } from '../../projections/index.js';
import { Company, resolveSchedules, SchedulesAnswer } from '../../schema/index.js';
import { schedulerBus, silent } from '../actors/fixtures/scheduler-bus.js';
import { scheduledCompany } from '../fixtures/schedules/company.js';
import { ManualClock } from '../harness/manual-clock.js';
import { call, startHarness } from './fixtures/gateway-harness.js';

t.test('GET /schedules lists the applied schedules with next_run and the ledger newest first', async (t) => {
  const { bus, start } = await schedulerBus(t);
  const clock = new ManualClock('2026-01-05T07:50:00Z'); // Monday 08:50 in Berlin
  const host = start('node-a', clock);
  const runs = await followScheduleRuns({ bus, logger: silent });
  t.teardown(() => runs.stop());
  const h = await startHarness({
    routes: scheduleRoutes({ answer: () => schedulesAnswer(host.schedules(), runs.state, clock.now()) }),
  });
  t.teardown(() => h.gw.close());

  await host.applier().apply(Company.parse(scheduledCompany()), null);
  const before = await call(`${h.base}/schedules`);
  t.equal(before.status, 200);
  const first = SchedulesAnswer.parse(before.json);
  t.equal(first.schedules.length, 8);
  t.match(
    first.schedules.find((s) => s.name === 'standup'),
    {
      scope_type: 'unit',
      scope_id: 'Engineering',
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      task: 'Post your standup',
      target: 'each',
      enabled: true,
      catchup: false,
      timeout_seconds: 600,
      runners: ['eve', 'alice', 'bob'],
      next_run: '2026-01-05T08:00:00.000Z',
    },
  );
  t.equal(first.schedules.find((s) => s.name === 'triage')?.next_run, '', 'disabled: empty next_run');
  t.same(first.recent_runs, []);

  await clock.advanceTo('2026-01-05T08:15:00Z');
  t.ok(await runs.until((state) => state.runs.length >= 6, 30_000), 'the rows reached the read model');
  const after = SchedulesAnswer.parse((await call(`${h.base}/schedules`)).json);
  t.same(
    after.recent_runs.map(
      (r) => `${r.schedule_name} ${r.target_handle} ${r.fired_at.slice(11, 16)} ${r.outcome}`,
    ),
    [
      'queue ivy 08:15 fired',
      'oncall alice 08:00 fired',
      'standup bob 08:00 fired',
      'standup alice 08:00 fired',
      'standup eve 08:00 fired',
      'inbox-sweep eve 08:00 fired',
    ],
  );
  t.same(
    Object.keys(after.recent_runs[0]!).sort(),
    [
      'fired_at',
      'outcome',
      'schedule_name',
      'scheduled_at',
      'scope_id',
      'scope_type',
      'target_handle',
    ].filter((k) => k !== 'schedule_id'),
  );
  t.equal(after.schedules.find((s) => s.name === 'standup')?.next_run, '2026-01-06T08:00:00.000Z');
  t.same(resolveSchedules(Company.parse(scheduledCompany())).length, after.schedules.length);
});
