/**
 * The month a model call's budget check counts (actors/seat/budget.ts) is the month `/budgets` shows
 * (projections/tokens/budgets.ts): both open at local midnight of the 1st in the company timezone, also
 * when the zone changes its clock on the 1st (Sydney's DST began on Sunday 1 October 2023 at 02:00).
 */
import t from 'tap';
import { monthOf } from '../../../actors/index.js';
import { monthWindow } from '../../../projections/tokens/budgets.js';

t.test('the budget month opens at local midnight of the 1st when the clocks change that day', async (t) => {
  // 00:00 on 1 October 2023 in Sydney is still standard time (+10): 14:00 UTC on 30 September.
  t.same(monthOf(Date.parse('2023-10-10T00:00:00Z'), 'Australia/Sydney'), {
    key: '2023-10',
    start: '2023-09-30T14:00:00.000Z',
    end: '2023-10-31T13:00:00.000Z',
  });
  t.equal(
    monthOf(Date.parse('2023-09-30T13:30:00Z'), 'Australia/Sydney').key,
    '2023-09',
    '23:30 on 30 September in Sydney is still September',
  );
  // Auckland's DST ended on Sunday 1 April 2029 at 03:00: midnight that day is daylight time (+13).
  t.equal(monthOf(Date.parse('2029-04-10T00:00:00Z'), 'Pacific/Auckland').start, '2029-03-31T11:00:00.000Z');
});

t.test(
  'the month the budget check counts is the window /budgets shows, in every zone, at every edge',
  async (t) => {
    const zones = [
      'UTC',
      'Australia/Sydney',
      'Australia/Adelaide',
      'Australia/Lord_Howe',
      'Pacific/Auckland',
      'Pacific/Chatham',
      'America/Asuncion',
      'America/Santiago',
      'America/Havana',
      'America/New_York',
      'Europe/Berlin',
      'Asia/Kathmandu',
    ];
    const mismatches: string[] = [];
    for (const zone of zones)
      for (let year = 2023; year <= 2030; year += 1)
        for (let month = 0; month < 12; month += 1) {
          const opens = Date.parse(monthWindow(Date.UTC(year, month, 15), zone).window.start);
          for (const at of [opens - 1, opens, opens + 3_600_000]) {
            const shown = monthWindow(at, zone).window;
            const counted = monthOf(at, zone);
            if (counted.start !== shown.start || counted.end !== shown.end)
              mismatches.push(`${zone} ${new Date(at).toISOString()}: ${counted.start}..${counted.end}`);
          }
        }
    t.same(mismatches, [], 'no instant is counted in another month than /budgets shows');
  },
);
