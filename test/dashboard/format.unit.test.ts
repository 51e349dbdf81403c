/** The dashboard's number formats: a count reads in the largest unit it rounds into, never as 1000 of a smaller one. */
import t from 'tap';
import { count, percent } from '../../dashboard/src/ui/format.js';

t.test('a count is written whole below ten thousand and in k, M, B above', async (t) => {
  t.equal(count(9_999), '9,999');
  t.equal(count(12_345), '12.3k');
  t.equal(count(1_234_567), '1.2M');
  t.equal(count(2_500_000_000), '2.5B');
  t.equal(count(null), '—');
  t.equal(count(-12_345), '-12.3k', 'a negative count as its magnitude');
});

t.test(
  'a count that rounds up to the next unit is written in it, not as 1000.0 of the smaller',
  async (t) => {
    t.equal(count(999_949), '999.9k');
    t.equal(count(999_950), '1.0M');
    t.equal(count(999_999), '1.0M');
    t.equal(count(999_999_999), '1.0B');
    t.equal(count(-999_999), '-1.0M');
  },
);

t.test('a share is a whole percent, with a decimal below ten', async (t) => {
  t.equal(percent(0.247), '25%');
  t.equal(percent(0.05), '5.0%');
  t.equal(percent(null), '—');
});
