import t from 'tap';
import { ReadModels } from '../../../projections/index.js';
import { SpendWindow } from '../../../projections/tokens/spend-window.js';
import { companyDoc, spend } from '../fixtures/readmodels.js';

const hour = 3_600_000;
const clock = (start: string) => {
  let now = Date.parse(start);
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

t.test('a record stamped before the window is dropped on arrival', async (t) => {
  const c = clock('2026-11-23T12:00:00Z');
  const w = new SpendWindow({ now: c.now });
  t.notOk(w.add(spend({ timestamp: '2026-11-22T11:59:59Z' })));
  t.ok(w.add(spend({ timestamp: '2026-11-22T12:00:01Z' })));
  t.equal(w.size, 1);
});

t.test('records age out on the serving node clock after 24 h', async (t) => {
  const c = clock('2026-11-23T12:00:00Z');
  const w = new SpendWindow({ now: c.now });
  w.add(spend({ timestamp: '2026-11-23T11:00:00Z' }));
  w.add(spend({ timestamp: '2026-11-23T12:00:00+01:00' })); // 11:00Z too
  w.add(spend({ timestamp: '2026-11-23T11:30:00Z' }));
  c.advance(23 * hour - 1000);
  t.notOk(w.age(), 'nothing older than 24 h yet');
  c.advance(30 * 60_000);
  t.ok(w.age());
  t.equal(w.size, 1, 'the two 11:00Z records left; the 11:30Z one stays');
});

t.test('a record stamped ahead of the clock ages from its arrival', async (t) => {
  const c = clock('2026-11-23T12:00:00Z');
  const w = new SpendWindow({ now: c.now });
  t.ok(w.add(spend({ timestamp: '2026-11-25T00:00:00Z' })));
  c.advance(24 * hour - 1);
  w.age();
  t.equal(w.size, 1);
  c.advance(2);
  w.age();
  t.equal(w.size, 0, 'gone 24 h after arrival, long before its own stamp');
});

t.test('an unparseable stamp is kept, never ages, and is the first dropped by the cap', async (t) => {
  const c = clock('2026-11-23T12:00:00Z');
  const w = new SpendWindow({ now: c.now, cap: 3 });
  t.ok(w.add(spend({ id: 'bad', timestamp: 'not a time' })));
  c.advance(48 * hour);
  w.age();
  t.ok(w.has('bad'), 'still there two days later');
  w.add(spend({ id: 'a', timestamp: new Date(c.now() - 3 * hour).toISOString() }));
  w.add(spend({ id: 'b', timestamp: new Date(c.now() - 2 * hour).toISOString() }));
  t.equal(w.size, 3);
  w.add(spend({ id: 'c', timestamp: new Date(c.now() - 1 * hour).toISOString() }));
  t.notOk(w.has('bad'), 'the cap drops the unparseable one first');
  t.ok(w.has('a'));
  w.add(spend({ id: 'd', timestamp: new Date(c.now()).toISOString() }));
  t.notOk(w.has('a'), 'then the oldest');
  t.same(
    w.records().map((r) => r.id),
    ['b', 'c', 'd'],
  );
});

t.test('the cap keeps the newest 24,000 records', async (t) => {
  const c = clock('2026-11-23T12:00:00Z');
  const w = new SpendWindow({ now: c.now });
  const base = c.now() - 20 * hour;
  for (let i = 0; i < 24_010; i += 1)
    w.add(spend({ id: `r${i}`, timestamp: new Date(base + i * 1000).toISOString() }));
  t.equal(w.size, 24_000);
  t.notOk(w.has('r9'));
  t.ok(w.has('r10'));
  t.ok(w.has('r24009'));
});

t.test('a duplicate id is not counted twice', async (t) => {
  const w = new SpendWindow({ now: () => Date.parse('2026-11-23T12:00:00Z') });
  const r = spend();
  t.ok(w.add(r));
  t.notOk(w.add(r));
  t.equal(w.summary().totals.calls, 1);
});

t.test('tokens and budget are pushed on the shared tick only after a change', async (t) => {
  const c = clock('2026-11-23T12:00:00Z');
  const m = new ReadModels({ now: c.now });
  m.setCompany(companyDoc, 'rev');
  const pushes: string[] = [];
  for (const s of m.sections()) s.subscribe(() => pushes.push(s.name));
  const budget = m.sections().find((s) => s.name === 'budget')!;
  t.equal(budget.current(), null, 'null before any report');
  m.tick();
  t.same(pushes, [], 'no change, no push');
  m.applySpend(spend({ timestamp: '2026-11-23T11:00:00Z', total_tokens: 40 }));
  t.same(pushes, [], 'nothing pushed before the tick');
  m.tick();
  t.same(pushes.sort(), ['agents', 'budget', 'tokens']);
  t.match(budget.current(), { cap: 1000, used: 40, remaining: 960 });
  t.match(
    m
      .sections()
      .find((s) => s.name === 'tokens')!
      .current(),
    { records: 1, totals: { total_tokens: 40 } },
  );
  pushes.length = 0;
  m.tick();
  t.same(pushes, [], 'quiet after the push');
  c.advance(24 * hour);
  m.tick();
  t.same(pushes.sort(), ['budget', 'tokens'], 'aging out is a change too');
});

t.test('the budget meter reports zero use once the spend seed finished', async (t) => {
  const m = new ReadModels({ now: () => Date.parse('2026-11-23T12:00:00Z') });
  m.setCompany(companyDoc, 'rev');
  m.markSpendSeeded();
  t.match(
    m
      .sections()
      .find((s) => s.name === 'budget')!
      .current(),
    { cap: 1000, used: 0, refused: false },
  );
});
