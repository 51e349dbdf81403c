/**
 * The budget check a node without seats makes before an embeddings call (scripts/embeddings-wiring.ts
 * `ledgerBudget`): from its spend ledger's report, the org first, then the served seat, each only when capped.
 */
import t from 'tap';
import { ledgerBudget } from '../../scripts/embeddings-wiring.js';

const window = {
  kind: 'month' as const,
  start: '2026-12-01T00:00:00.000Z',
  end: '2027-01-01T00:00:00.000Z',
  timezone: 'UTC',
};
const meter = (cap: number, used: number) => ({
  cap,
  used,
  remaining: Math.max(0, cap - used),
  ratio: used / cap,
  refused: cap > 0 && used >= cap,
  estimated_tokens: 0,
});
const seat = (handle: string, cap: number, used: number) => ({ handle, role: handle, agent_id: null, ...meter(cap, used) }); // prettier-ignore

t.test('a spent org refuses every call; a spent seat refuses its own calls only', async (t) => {
  let org = meter(100, 20);
  const budget = ledgerBudget(() => ({
    window,
    org,
    seats: [seat('ada', 10, 12), seat('bo', 10, 3)],
    refused: [],
  }));
  t.match(await budget.check('ada', { org: 100, seat: 10 }), {
    scope: 'seat',
    cap: 10,
    used: 12,
    window_start: window.start,
    window_end: window.end,
  });
  t.equal(await budget.check('bo', { org: 100, seat: 10 }), null, 'a seat under its cap');
  t.equal(await budget.check('', { org: 100, seat: 0 }), null, 'a person’s search, the org under its cap');
  t.equal(
    await budget.check('ada', { org: 100, seat: 0 }),
    null,
    'no seat cap asked: the seat is not checked',
  );
  org = meter(100, 140);
  t.match(await budget.check('bo', { org: 100, seat: 10 }), { scope: 'org', cap: 100, used: 140 });
  t.match(await budget.check('', { org: 100, seat: 0 }), { scope: 'org' }, 'the org first, for anyone');
  t.equal(await budget.check('', { org: 0, seat: 0 }), null, 'no cap asked: nothing refused');
});
