import t from 'tap';
import { monthOf } from '../../../actors/index.js';

t.test('the budget window is the calendar month in the company timezone', async (t) => {
  const at = Date.parse('2026-03-01T03:00:00Z'); // 22:00 on 28 February in New York
  t.same(monthOf(at, 'America/New_York'), {
    key: '2026-02',
    start: '2026-02-01T05:00:00.000Z',
    end: '2026-03-01T05:00:00.000Z',
  });
  t.equal(monthOf(at, 'UTC').key, '2026-03', 'the same instant in another zone is in its own month');
  t.equal(monthOf(at + 3 * 3600_000, 'America/New_York').key, '2026-03', 'and the next month begins');
  t.equal(monthOf(at, 'Not/A_Zone').key, '2026-03', 'an unknown zone counts as UTC');
});
