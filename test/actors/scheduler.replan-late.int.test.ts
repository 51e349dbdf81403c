/**
 * A config apply that lands after a fire time whose tick has not run yet (the event loop or the
 * scheduler's queue was busy at the fire time): the firing was due under the plan in force, so it
 * happens once, whatever the apply does to its schedule.
 */
import t from 'tap';
import type { Clock } from '../../actors/index.js';
import { aSchedule } from '../fixtures/schedules/schedule.js';
import { ManualClock } from '../harness/manual-clock.js';
import { brief, ledger, schedulerBus } from './fixtures/scheduler-bus.js';

/** The manual clock, read `lateBy` ms ahead while its timers stay where they are (a tick not yet run). */
const lagging = (clock: ManualClock): { clock: Clock; lateBy: (ms: number) => void } => {
  let lag = 0;
  return {
    clock: { now: () => new Date(clock.now().getTime() + lag), at: (when, fn) => clock.at(when, fn) },
    lateBy: (ms) => {
      lag = ms;
    },
  };
};

const edits = [
  ['its cron edited', [aSchedule({ cron: '0 */2 * * *' })]],
  ['its timezone edited', [aSchedule({ timezone: 'Europe/Berlin' })]],
  ['removed', []],
  ['disabled', [aSchedule({ enabled: false })]],
] as const;

for (const [what, next] of edits) {
  t.test(
    `a schedule ${what} just after its fire time, before its tick ran, still fires it once`,
    async (t) => {
      const { bus, start } = await schedulerBus(t);
      const manual = new ManualClock('2026-01-01T04:10:00Z');
      const { clock, lateBy } = lagging(manual);
      const host = start('node-a', manual, { clock });
      await host.plan([aSchedule({ runners: ['alice'] })]);
      t.equal(host.holding(), true);
      await manual.advanceTo('2026-01-01T04:59:59Z');
      // 05:00:02 by the wall clock; the 05:00 timer has not run yet.
      lateBy(3000);
      await host.plan([...next]);
      lateBy(0);
      await manual.advanceTo('2026-01-01T05:30:00Z');
      t.same(
        brief(await ledger(bus)),
        ['hourly alice 05:00 fired'],
        'the 05:00 firing, due before the apply, once',
      );
    },
  );
}

t.test('an apply that keeps the timing leaves a late tick to fire once', async (t) => {
  const { bus, start } = await schedulerBus(t);
  const manual = new ManualClock('2026-01-01T04:10:00Z');
  const { clock, lateBy } = lagging(manual);
  const host = start('node-a', manual, { clock });
  await host.plan([aSchedule({ runners: ['alice'] })]);
  await manual.advanceTo('2026-01-01T04:59:59Z');
  lateBy(3000);
  await host.plan([aSchedule({ runners: ['alice'], task: 'Check in, briefly' })]);
  lateBy(0);
  await manual.advanceTo('2026-01-01T06:00:00Z');
  t.same(brief(await ledger(bus)), ['hourly alice 05:00 fired', 'hourly alice 06:00 fired']);
});
