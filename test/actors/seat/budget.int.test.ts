import t from 'tap';
import { createBudget, monthOf } from '../../../actors/index.js';
import { ensureCatalogue, openMemoryBus } from '../../../bus/index.js';

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

t.test('spend added by a hundred seats at once is all counted, none refused', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const { coord } = await ensureCatalogue(bus);
  const budget = createBudget({ kv: coord, timezone: () => 'UTC' });
  const seats = Array.from({ length: 100 }, (_, i) => `s${i}`);
  await Promise.all(seats.flatMap((seat) => [budget.add(seat, 7), budget.add(seat, 3)]));
  const refusal = await budget.check('s1', { org: 2000, seat: 10 });
  t.match(refusal, { scope: 'seat', cap: 10, used: 10 }, 'each seat counted its own spend');
  const org = await budget.check('s1', { org: 1000, seat: 0 });
  t.match(org, { scope: 'org', cap: 1000, used: 1000 }, 'the org counter has every token');
  t.equal(await budget.check('s1', { org: 1001, seat: 11 }), null);
});

t.test(
  'adds from two nodes in turn all count: a node whose last write is no longer the newest reads again',
  async (t) => {
    const bus = await openMemoryBus({});
    t.teardown(() => bus.close());
    const { coord } = await ensureCatalogue(bus);
    const a = createBudget({ kv: coord, timezone: () => 'UTC' });
    const b = createBudget({ kv: coord, timezone: () => 'UTC' });
    await a.add('s1', 5);
    await b.add('s1', 7);
    await a.add('s1', 3);
    await a.add('s1', 1);
    await b.add(null, 10);
    t.match(await a.check('s1', { org: 26, seat: 0 }), { scope: 'org', used: 26 });
    t.match(await b.check('s1', { org: 0, seat: 16 }), { scope: 'seat', used: 16 });
    t.equal(await a.check('s1', { org: 27, seat: 17 }), null);
  },
);
