import { CronExpression } from 'cron-parser';
import t from 'tap';
import { latestFireTime, nextFireTime } from '../../schema/index.js';

const HOUR = 3_600_000;

/**
 * Counts cron-parser's steps while `run` computes: a failing backward step over a DST gap at midnight
 * (America/Santiago in September) ran into cron-parser's loop limit, half a second of blocked event loop
 * per `/schedules` read. Counting calls is the deterministic stand-in for that time.
 */
function countSteps<T>(run: () => T): { value: T; next: number; prev: number } {
  const proto = CronExpression.prototype;
  const next = Reflect.get<CronExpression, 'next'>(proto, 'next');
  const prev = Reflect.get<CronExpression, 'prev'>(proto, 'prev');
  const counts = { next: 0, prev: 0 };
  proto.next = function (this: CronExpression) {
    counts.next++;
    return next.call(this);
  };
  proto.prev = function (this: CronExpression) {
    counts.prev++;
    return prev.call(this);
  };
  try {
    return { value: run(), ...counts };
  } finally {
    proto.next = next;
    proto.prev = prev;
  }
}

t.test(
  'fire times around a DST gap at midnight are found stepping forwards only, in a bounded number of steps',
  async (t) => {
    // Santiago skips 00:00..01:00 on 2026-09-06 (04:00Z): that day's midnight fires at 01:00 -03.
    const cron = '0 0 * * *';
    const tz = 'America/Santiago';
    const fires = [
      '2026-09-05T04:00:00Z',
      '2026-09-06T04:00:00Z',
      '2026-09-07T03:00:00Z',
      '2026-09-08T03:00:00Z',
    ].map(Date.parse);
    const wrong: string[] = [];
    let prevSteps = 0;
    let mostNextSteps = 0;
    for (
      let ms = Date.parse('2026-09-05T23:00:00Z');
      ms < Date.parse('2026-09-08T02:00:00Z');
      ms += 20 * 60_000
    ) {
      const asked = new Date(ms);
      const latest = countSteps(() => latestFireTime(cron, tz, asked));
      const next = countSteps(() => nextFireTime(cron, tz, asked));
      prevSteps += latest.prev + next.prev;
      mostNextSteps = Math.max(mostNextSteps, latest.next, next.next);
      if (latest.value?.getTime() !== fires.filter((f) => f <= ms).pop())
        wrong.push(`latest at ${asked.toISOString()}: ${latest.value?.toISOString()}`);
      if (next.value?.getTime() !== fires.find((f) => f > ms))
        wrong.push(`next at ${asked.toISOString()}: ${next.value?.toISOString()}`);
    }
    t.same(wrong, [], 'midnight each day, the gap day at 01:00 -03');
    t.equal(prevSteps, 0, 'never a step backwards');
    t.ok(mostNextSteps <= 80, `at most 80 forward steps per answer (took ${mostNextSteps})`);
  },
);

t.test('a latest fire time years back is found in a bounded number of forward steps', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['0 0 29 2 *', 'UTC', '2024-02-29T00:00:00.000Z'], // leap days only
    ['* * 1 1 *', 'Europe/Berlin', '2026-01-01T22:59:00.000Z'], // every minute of New Year's Day, 60 * 24 a year
    ['0 9 * * 1-5', 'America/Santiago', '2026-09-04T13:00:00.000Z'], // the Friday before the gap
  ];
  for (const [cron, tz, expected] of cases) {
    const { value, next, prev } = countSteps(() =>
      latestFireTime(cron, tz, new Date('2026-09-06T12:00:00Z')),
    );
    t.equal(value?.toISOString(), expected, `${cron} in ${tz}`);
    t.equal(prev, 0, `${cron}: never a step backwards`);
    t.ok(next <= 80, `${cron}: at most 80 forward steps (took ${next})`);
  }
  // A firing every second, right after an autumn overlap, walks the most: still bounded.
  const dense = countSteps(() =>
    latestFireTime('* * * * * *', 'America/New_York', new Date(Date.parse('2026-11-01T06:00:00Z') + HOUR)),
  );
  t.equal(dense.value?.toISOString(), '2026-11-01T07:00:00.000Z');
  t.equal(dense.prev, 0);
  t.ok(dense.next <= 1_200, `every second: at most 1200 forward steps (took ${dense.next})`);
});
