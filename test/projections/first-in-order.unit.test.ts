import fc from 'fast-check';
import t from 'tap';
import { firstInOrder } from '../../projections/query/first.js';

t.test('the first items in an order are what a full sort would put first, in that order', async (t) => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: -50, max: 50 })), fc.integer({ min: 0, max: 30 }), (xs, limit) => {
      const items = xs.map((value, at) => ({ value, at }));
      // A total order (ties broken by position), as the pages' title and id order is.
      const before = (a: (typeof items)[number], b: (typeof items)[number]) =>
        a.value < b.value || (a.value === b.value && a.at < b.at);
      const sorted = [...items].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0)).slice(0, limit);
      t.same(firstInOrder(items, limit, before), sorted);
    }),
    { numRuns: 300 },
  );
});

t.test('a limit of zero keeps nothing, and fewer items than the limit are all kept', async (t) => {
  const lt = (a: number, b: number) => a < b;
  t.same(firstInOrder([3, 1, 2], 0, lt), []);
  t.same(firstInOrder([3, 1, 2], 10, lt), [1, 2, 3]);
  t.same(firstInOrder([], 5, lt), []);
});
