import t from 'tap';
import { monthWindow } from '../../../projections/tokens/budgets.js';

const at = (iso: string) => Date.parse(iso);

t.test('the month window follows the clock across month ends, back again and between zones', async (t) => {
  const november = monthWindow(at('2026-11-10T12:00:00Z'), 'Europe/Berlin');
  t.same(november.window, {
    kind: 'month',
    start: '2026-10-31T23:00:00.000Z',
    end: '2026-11-30T23:00:00.000Z',
    timezone: 'Europe/Berlin',
  });
  t.equal(monthWindow(at('2026-11-30T22:59:59.999Z'), 'Europe/Berlin').window.end, november.window.end);
  const december = monthWindow(at('2026-11-30T23:00:00Z'), 'Europe/Berlin');
  t.equal(december.window.start, '2026-11-30T23:00:00.000Z', 'local midnight opens December');
  t.equal(december.window.end, '2026-12-31T23:00:00.000Z');
  t.equal(
    monthWindow(at('2026-11-15T00:00:00Z'), 'Europe/Berlin').window.start,
    '2026-10-31T23:00:00.000Z',
    'a clock set back reads its own month',
  );
  const utc = monthWindow(at('2026-11-30T23:30:00Z'), 'UTC');
  t.same([utc.window.start, utc.window.end], ['2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z']);
  t.equal(monthWindow(at('2026-11-30T23:30:00Z'), 'Europe/Berlin').window.start, december.window.start);
  t.equal(monthWindow(at('2027-03-29T12:00:00Z'), 'Europe/Berlin').window.start, '2027-02-28T23:00:00.000Z');
});
