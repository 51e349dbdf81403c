import fc from 'fast-check';
import t from 'tap';
import { catchupWindowMs, latestFireTime, nextFireTime, periodAfter } from '../../schema/index.js';

const crons = [
  '* * * * *',
  '*/7 * * * *',
  '0 * * * *',
  '30 2 * * *',
  '30 1 * * *',
  '0 9 * * 1-5',
  '15 10 1 * *',
];
// Zones whose DST changes cron-parser walks correctly (see ops/schedules.md for the exceptions).
const zones = ['UTC', 'Europe/Berlin', 'Europe/London', 'America/New_York', 'Asia/Kolkata'];
// Instants across 2025-2027, so every DST change of those zones is crossed.
const instant = fc
  .integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 11, 31) })
  .map((ms) => new Date(ms));

t.test('around any instant: latest <= instant < next, and nothing fires in between', async (t) => {
  fc.assert(
    fc.property(fc.constantFrom(...crons), fc.constantFrom(...zones), instant, (cron, tz, at) => {
      const latest = latestFireTime(cron, tz, at);
      const next = nextFireTime(cron, tz, at);
      if (latest === null || next === null) return false;
      if (!(latest.getTime() <= at.getTime() && at.getTime() < next.getTime())) return false;
      // The fire time after `latest` is `next` itself, unless `latest` is `at` exactly.
      const afterLatest = nextFireTime(cron, tz, latest);
      return latest.getTime() === at.getTime() || afterLatest?.getTime() === next.getTime();
    }),
    { numRuns: 100 },
  );
  t.pass('held');
});

t.test('the catchup window of any firing is half its period within 2 minutes .. 2 hours', async (t) => {
  fc.assert(
    fc.property(fc.constantFrom(...crons), fc.constantFrom(...zones), instant, (cron, tz, at) => {
      const fire = nextFireTime(cron, tz, at) as Date;
      const period = periodAfter(cron, tz, fire) as number;
      const window = catchupWindowMs(period);
      return (
        period > 0 &&
        window >= 2 * 60_000 &&
        window <= 2 * 3_600_000 &&
        (window === Math.floor(period / 2) || window === 2 * 60_000 || window === 2 * 3_600_000)
      );
    }),
    { numRuns: 100 },
  );
  t.pass('held');
});
