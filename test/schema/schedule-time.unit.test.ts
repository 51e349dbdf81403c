import t from 'tap';
import {
  CATCHUP_MAX_MS,
  CATCHUP_MIN_MS,
  catchupWindowMs,
  cronProblem,
  latestFireTime,
  missedFiring,
  nextFireTime,
  nextFireTimes,
  periodAfter,
} from '../../schema/index.js';

const at = (iso: string): Date => new Date(iso);
const isos = (dates: Date[]): string[] => dates.map((d) => d.toISOString());
const MIN = 60_000;
const HOUR = 60 * MIN;

t.test('fire times follow the wall clock of the timezone, winter and summer', async (t) => {
  t.equal(
    nextFireTime('0 9 * * *', 'Europe/Berlin', at('2026-01-15T00:00:00Z'))?.toISOString(),
    '2026-01-15T08:00:00.000Z',
  );
  t.equal(
    nextFireTime('0 9 * * *', 'Europe/Berlin', at('2026-07-15T00:00:00Z'))?.toISOString(),
    '2026-07-15T07:00:00.000Z',
  );
  t.equal(
    nextFireTime('0 9 * * *', 'UTC', at('2026-07-15T00:00:00Z'))?.toISOString(),
    '2026-07-15T09:00:00.000Z',
  );
  t.equal(
    nextFireTime('@daily', 'Asia/Kolkata', at('2026-01-01T08:00:00Z'))?.toISOString(),
    '2026-01-01T18:30:00.000Z',
  );
});

t.test('the next fire time is strictly after the instant given', async (t) => {
  t.same(isos(nextFireTimes('*/15 * * * *', 'UTC', at('2026-01-01T00:15:00Z'), 3)), [
    '2026-01-01T00:30:00.000Z',
    '2026-01-01T00:45:00.000Z',
    '2026-01-01T01:00:00.000Z',
  ]);
  t.equal(
    nextFireTime('*/15 * * * *', 'UTC', at('2026-01-01T00:14:59.999Z'))?.toISOString(),
    '2026-01-01T00:15:00.000Z',
  );
});

t.test('a wall time skipped by the spring DST gap fires once, shifted forward by the gap', async (t) => {
  // America/New_York jumps from 02:00 EST to 03:00 EDT on 2026-03-08.
  t.same(isos(nextFireTimes('30 2 * * *', 'America/New_York', at('2026-03-07T12:00:00Z'), 2)), [
    '2026-03-08T07:30:00.000Z', // 03:30 EDT: the only firing that day
    '2026-03-09T06:30:00.000Z', // 02:30 EDT
  ]);
  // Hourly: 01:00 EST then 03:00 EDT; the hour that does not exist does not fire.
  t.same(isos(nextFireTimes('0 * * * *', 'America/New_York', at('2026-03-08T05:30:00Z'), 3)), [
    '2026-03-08T06:00:00.000Z',
    '2026-03-08T07:00:00.000Z',
    '2026-03-08T08:00:00.000Z',
  ]);
});

t.test(
  'a wall time repeated by the autumn DST overlap fires once; hourly fires every real hour',
  async (t) => {
    // America/New_York goes from 02:00 EDT back to 01:00 EST on 2026-11-01: 01:30 happens twice.
    t.same(isos(nextFireTimes('30 1 * * *', 'America/New_York', at('2026-10-31T12:00:00Z'), 2)), [
      '2026-11-01T05:30:00.000Z', // 01:30 EDT, the first occurrence only
      '2026-11-02T06:30:00.000Z',
    ]);
    t.same(isos(nextFireTimes('0 * * * *', 'America/New_York', at('2026-11-01T04:30:00Z'), 3)), [
      '2026-11-01T05:00:00.000Z', // 01:00 EDT
      '2026-11-01T06:00:00.000Z', // 01:00 EST
      '2026-11-01T07:00:00.000Z', // 02:00 EST
    ]);
    // Europe/London in the overlap too.
    t.same(isos(nextFireTimes('30 1 * * *', 'Europe/London', at('2026-10-24T12:00:00Z'), 2)), [
      '2026-10-25T00:30:00.000Z', // 01:30 BST
      '2026-10-26T01:30:00.000Z', // 01:30 GMT
    ]);
  },
);

t.test('the fire times are the same whichever instant they are asked from, across DST changes', async (t) => {
  // Berlin skips 02:00..03:00 on 2026-03-29: 02:30 shifts to 03:30 CEST (01:30Z) even when asked at 03:02.
  t.equal(
    nextFireTime('30 2 * * *', 'Europe/Berlin', at('2026-03-29T01:02:00Z'))?.toISOString(),
    '2026-03-29T01:30:00.000Z',
  );
  t.equal(
    latestFireTime('30 2 * * *', 'Europe/Berlin', at('2026-03-29T01:45:00Z'))?.toISOString(),
    '2026-03-29T01:30:00.000Z',
  );
  // Berlin repeats 02:00..03:00 on 2026-10-25: asked between the two 02:30s, the repeat is not a firing.
  t.equal(
    nextFireTime('30 2 * * *', 'Europe/Berlin', at('2026-10-25T01:02:00Z'))?.toISOString(),
    '2026-10-26T01:30:00.000Z',
  );
  t.equal(
    latestFireTime('30 2 * * *', 'Europe/Berlin', at('2026-10-25T01:45:00Z'))?.toISOString(),
    '2026-10-25T00:30:00.000Z',
  );
});

t.test('the latest fire time includes the instant itself', async (t) => {
  t.equal(
    latestFireTime('0 * * * *', 'UTC', at('2026-01-01T05:00:00Z'))?.toISOString(),
    '2026-01-01T05:00:00.000Z',
  );
  t.equal(
    latestFireTime('0 * * * *', 'UTC', at('2026-01-01T05:59:59Z'))?.toISOString(),
    '2026-01-01T05:00:00.000Z',
  );
  t.equal(
    latestFireTime('0 9 * * *', 'Europe/Berlin', at('2026-07-15T06:59:00Z'))?.toISOString(),
    '2026-07-14T07:00:00.000Z',
  );
});

t.test('the period of a firing runs to the next one, across weekends and DST', async (t) => {
  t.equal(periodAfter('*/5 * * * *', 'UTC', at('2026-01-01T00:05:00Z')), 5 * MIN);
  // Friday 09:00 -> Monday 09:00.
  t.equal(periodAfter('0 9 * * 1-5', 'UTC', at('2026-01-02T09:00:00Z')), 72 * HOUR);
  // The day that loses an hour is 23 hours long.
  t.equal(periodAfter('0 0 * * *', 'America/New_York', at('2026-03-08T05:00:00Z')), 23 * HOUR);
});

t.test('the catchup window is half the period, clamped to 2 minutes .. 2 hours', async (t) => {
  t.equal(CATCHUP_MIN_MS, 2 * MIN);
  t.equal(CATCHUP_MAX_MS, 2 * HOUR);
  t.equal(catchupWindowMs(1 * MIN), 2 * MIN, 'every minute: clamped up to 2 min');
  t.equal(catchupWindowMs(4 * MIN), 2 * MIN, 'exactly at the lower bound');
  t.equal(catchupWindowMs(5 * MIN), 2.5 * MIN);
  t.equal(catchupWindowMs(HOUR), 30 * MIN);
  t.equal(catchupWindowMs(4 * HOUR), 2 * HOUR, 'exactly at the upper bound');
  t.equal(catchupWindowMs(24 * HOUR), 2 * HOUR, 'daily: clamped down to 2 h');
  t.equal(catchupWindowMs(null), 2 * HOUR, 'no next firing reads as the longest period');
});

t.test(
  'a missed firing is the latest one after the scheduler last ran, judged against its window',
  async (t) => {
    const hourly = '0 * * * *';
    t.equal(missedFiring(hourly, 'UTC', null, at('2026-01-01T05:10:00Z')), null, 'never ran: nothing missed');
    t.equal(
      missedFiring(hourly, 'UTC', at('2026-01-01T05:00:00Z'), at('2026-01-01T05:10:00Z')),
      null,
      'ran at the firing itself: nothing missed',
    );
    const within = missedFiring(hourly, 'UTC', at('2026-01-01T02:30:00Z'), at('2026-01-01T05:30:00Z'));
    t.equal(within?.scheduledAt.toISOString(), '2026-01-01T05:00:00.000Z', 'only the most recent of three');
    t.equal(within?.withinWindow, true, '30 min late is inside half an hour');
    const outside = missedFiring(hourly, 'UTC', at('2026-01-01T02:30:00Z'), at('2026-01-01T05:30:00.001Z'));
    t.equal(outside?.withinWindow, false, 'a millisecond later it is not');
    const minutely = missedFiring('* * * * *', 'UTC', at('2026-01-01T05:00:30Z'), at('2026-01-01T05:03:00Z'));
    t.same([minutely?.scheduledAt.toISOString(), minutely?.withinWindow], ['2026-01-01T05:03:00.000Z', true]);
    const daily = missedFiring('0 6 * * *', 'UTC', at('2026-01-01T00:00:00Z'), at('2026-01-01T08:00:00Z'));
    t.same([daily?.windowMs, daily?.withinWindow], [2 * HOUR, true], 'daily: 2 h is the most');
    const dailyLate = missedFiring(
      '0 6 * * *',
      'UTC',
      at('2026-01-01T00:00:00Z'),
      at('2026-01-01T08:00:01Z'),
    );
    t.equal(dailyLate?.withinWindow, false);
  },
);

t.test('expressions and timezones that cannot be scheduled say why', async (t) => {
  t.equal(cronProblem('*/5 * * * *', 'Europe/Berlin'), null);
  t.equal(cronProblem('0 0 29 2 *', 'UTC'), null, 'leap days come');
  t.match(cronProblem('61 * * * *', 'UTC'), /cannot be scheduled/);
  t.match(cronProblem('0 0 31 2 *', 'UTC'), /cron/);
  t.match(cronProblem('* * * * *', 'Mars/Olympus'), /unknown timezone/);
  t.match(cronProblem('* * * * *', '${TZ}'), /unknown timezone/);
});

t.test(
  '@midnight, a macro of the cron grammar cron-parser does not know, schedules like @daily',
  async (t) => {
    t.equal(cronProblem('@midnight', 'UTC'), null);
    t.equal(cronProblem(' @midnight ', 'Europe/Berlin'), null);
    const after = at('2026-03-28T12:00:00Z'); // Europe/Berlin moves to summer time on March 29
    for (const tz of ['UTC', 'Europe/Berlin', 'Asia/Kolkata'])
      t.same(isos(nextFireTimes('@midnight', tz, after, 3)), isos(nextFireTimes('@daily', tz, after, 3)), tz);
    t.equal(nextFireTime('@midnight', 'UTC', after)?.toISOString(), '2026-03-29T00:00:00.000Z');
    t.equal(latestFireTime('@midnight', 'UTC', after)?.toISOString(), '2026-03-28T00:00:00.000Z');
  },
);

t.test(
  'a remembered answer is the same answer, and a caller changing its dates changes no later answer',
  async (t) => {
    const after = new Date('2026-03-02T07:00:00Z'); // a Monday; 09:00 in Paris is 08:00Z until March 29
    const expected = ['2026-03-02T08:00:00.000Z', '2026-03-03T08:00:00.000Z', '2026-03-04T08:00:00.000Z'];
    const first = nextFireTimes('0 9 * * 1-5', 'Europe/Paris', after, 3);
    t.same(
      first.map((d) => d.toISOString()),
      expected,
    );
    first[0]!.setTime(0);
    const again = nextFireTimes('0 9 * * 1-5', 'Europe/Paris', after, 3);
    t.same(
      again.map((d) => d.toISOString()),
      expected,
    );
  },
);

t.test(
  'after an autumn overlap the latest and next fire times of a schedule firing several times in the repeated hour are the first occurrences, asked at any instant',
  async (t) => {
    // New York repeats 01:00..02:00 on 2026-11-01 (06:00Z); Berlin and Sydney repeat 02:00..03:00 on theirs.
    const cases: Array<[string, string, string]> = [
      ['*/30 1 * * *', 'America/New_York', '2026-11-01T06:00:00Z'],
      ['0,30 1,2 * * *', 'America/New_York', '2026-11-01T06:00:00Z'],
      ['*/15 1-3 * * *', 'America/New_York', '2026-11-01T06:00:00Z'],
      ['*/30 2 * * *', 'Europe/Berlin', '2026-10-25T01:00:00Z'],
      ['*/15 1-3 * * *', 'Europe/Berlin', '2026-10-25T01:00:00Z'],
      ['0,30 1,2 * * *', 'Australia/Sydney', '2026-04-04T16:00:00Z'],
      ['0 */2 * * *', 'America/Santiago', '2026-04-05T03:00:00Z'],
      ['0 */2 * * *', 'America/Santiago', '2026-09-06T04:00:00Z'],
    ];
    for (const [cron, tz, change] of cases) {
      // The one sequence: each fire time the next after the one before, from two days back.
      const times: number[] = [];
      let from = new Date(Date.parse(change) - 48 * HOUR);
      while (from.getTime() < Date.parse(change) + 48 * HOUR) {
        const next = nextFireTime(cron, tz, from);
        if (next === null) break;
        times.push(next.getTime());
        from = next;
      }
      const wrong: string[] = [];
      for (let ms = Date.parse(change) - 6 * HOUR; ms < Date.parse(change) + 6 * HOUR; ms += 20 * MIN) {
        const latest = times.filter((x) => x <= ms).pop() ?? null;
        const next = times.find((x) => x > ms) ?? null;
        const asked = new Date(ms);
        if ((latestFireTime(cron, tz, asked)?.getTime() ?? null) !== latest)
          wrong.push(`latest at ${asked.toISOString()}`);
        if ((nextFireTime(cron, tz, asked)?.getTime() ?? null) !== next)
          wrong.push(`next at ${asked.toISOString()}`);
      }
      t.same(wrong, [], `${cron} in ${tz} around ${change}`);
    }
    // What a node taking the duty at 01:45 EST reads: the 01:30 EDT firing was missed.
    t.equal(
      missedFiring(
        '*/30 1 * * *',
        'America/New_York',
        at('2026-11-01T04:00:00Z'),
        at('2026-11-01T06:45:00Z'),
      )?.scheduledAt.toISOString(),
      '2026-11-01T05:30:00.000Z',
    );
  },
);

t.test(
  'a sixth field written as a year is refused saying six fields read seconds first, not a year',
  async (t) => {
    for (const cron of ['0 0 1 1 * 2027', '0 0 9 1 1 2027', '0 0 1 1 * 2027-2028']) {
      const problem = cronProblem(cron, 'UTC');
      t.match(problem, /a sixth field is not a year/, cron);
      t.match(problem, /second, minute, hour, day of month, month, day of week/, cron);
      t.notMatch(problem, /Constraint error/, cron);
    }
    t.equal(cronProblem('0 0 9 * * 1-5', 'UTC'), null, 'a sixth field that is a day of week still schedules');
    t.match(
      cronProblem('0 0 1 1 * 8', 'UTC'),
      /cannot be scheduled/,
      'a day of week out of range is no year',
    );
  },
);
