/**
 * The ledger keeps the last 32 days whole and older spend as quarter-hour sums: every read answers as it
 * did from whole records — the series in a zone whose midnight is not on the hour, the budgets and the
 * rollup — and a checkpoint carries the sums across a restart.
 */
import t from 'tap';
import { ReadModels } from '../../../projections/index.js';
import {
  emptyLedger,
  ledgerWholeMs,
  loadLedger,
  saveLedger,
} from '../../../projections/tokens/tokens.ledger.js';
import { Company } from '../../../schema/index.js';
import { companyDoc, spend } from '../fixtures/readmodels.js';

const day = 86_400_000;
const start = Date.parse('2026-09-01T00:00:00Z');
// Kathmandu is UTC+5:45: its midnight falls on a quarter hour, never on the hour.
const kathmandu = Company.parse({ ...companyDoc, timezone: 'Asia/Kathmandu' });

function models(clock: { now: number }): ReadModels {
  const m = new ReadModels({ now: () => clock.now });
  m.setCompany(kathmandu, 'rev');
  return m;
}

const fedRecords: Array<{ ms: number; total: number }> = [];

/** Spend every 7 hours 13 minutes for 60 days from `start`, over two seats, phases and models. */
function feed(m: ReadModels): number {
  let n = 0;
  fedRecords.length = 0;
  for (let ms = start; ms < start + 60 * day; ms += 7 * 3_600_000 + 13 * 60_000) {
    n += 1;
    fedRecords.push({ ms, total: n });
    m.applySpend(
      spend({
        handle: n % 3 === 0 ? 'ceo' : 'cto',
        role: n % 3 === 0 ? 'CEO' : 'CTO',
        phase: n % 2 === 0 ? 'plan' : 'execute',
        model: n % 5 === 0 ? 'small' : 'large',
        total_tokens: n,
        input_tokens: 2 * n,
        output_tokens: n,
        timestamp: new Date(ms).toISOString(),
      }),
    );
  }
  return n;
}

const series = (m: ReadModels, query: string) => {
  const s = m.tokenSeries(new URLSearchParams(query));
  if ('invalid' in s) throw new Error(s.invalid);
  return s;
};

/** The oracle: each record's tokens and calls summed by its Kathmandu calendar day. */
function byLocalDay(m: ReadModels): Map<string, { total: number; calls: number }> {
  const label = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kathmandu', year: 'numeric', month: '2-digit', day: '2-digit' }); // prettier-ignore
  const out = new Map<string, { total: number; calls: number }>();
  for (const { ms, total } of fedRecords) {
    if (ms < m.ledger.now() - 89 * day) continue;
    const key = label.format(new Date(ms));
    const row = out.get(key) ?? { total: 0, calls: 0 };
    out.set(key, { total: row.total + total, calls: row.calls + 1 });
  }
  return out;
}

t.test('the series reads the same once older records are folded into quarter-hour sums', async (t) => {
  const clock = { now: start + 60 * day };
  const m = models(clock);
  const fed = feed(m);
  t.ok(
    m.ledger.entries.length < fed && m.ledger.slots.length > 0,
    'older than 32 days: in sums from the start',
  );
  clock.now = start + 75 * day; // 15 more days of records are now older than 32
  const queries = [
    'buckets=90',
    'buckets=90&band=model',
    'buckets=90&band=agent&agent_role=CEO',
    'bucket=week&buckets=13',
  ];
  const before = queries.map((q) => series(m, q));
  const wholeBefore = m.ledger.entries.length;
  m.tick(); // prunes: records past 32 days become sums
  t.ok(m.ledger.entries.length < wholeBefore, 'records moved into sums');
  t.ok(
    m.ledger.entries.every((e) => e.ms >= clock.now - ledgerWholeMs),
    'only the last 32 days are whole',
  );
  t.equal(m.ledger.ids.size, m.ledger.entries.length, 'ids only of the whole records');
  t.same(
    queries.map((q) => series(m, q)),
    before,
    'every series answers as before',
  );
  const days = series(m, 'buckets=90');
  t.equal(days.buckets[0]?.start.slice(11), '18:15:00.000Z', 'Kathmandu days start at 18:15Z');
  const oracle = byLocalDay(m);
  const nonEmpty = days.buckets.filter((b) => b.calls > 0);
  t.same(
    nonEmpty.map((b) => [b.label, b.total_tokens, b.calls]),
    [...oracle].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, v]) => [key, v.total, v.calls]),
    'each company day sums exactly its records',
  );
});

t.test(
  'records replayed from older history go straight into sums; budgets and the rollup are unchanged',
  async (t) => {
    const clock = { now: start + 60 * day };
    const whole = models(clock);
    feed(whole);
    clock.now = start + 75 * day;
    const replayed = models(clock); // a node booting now replays the same stream
    feed(replayed);
    t.ok(replayed.ledger.slots.length > 0);
    t.same(series(replayed, 'buckets=90'), series(whole, 'buckets=90'));
    t.same(replayed.tokenBreakdown(new URLSearchParams('since_days=30')), whole.tokenBreakdown(new URLSearchParams('since_days=30'))); // prettier-ignore
    t.same(replayed.budgets(), whole.budgets());
  },
);

t.test('a checkpoint carries the sums and the whole records across a restart', async (t) => {
  const clock = { now: start + 75 * day };
  const m = models(clock);
  feed(m);
  m.tick();
  const saved = JSON.parse(JSON.stringify(saveLedger(m.ledger))) as unknown;
  const loaded = emptyLedger(() => clock.now);
  t.ok(loadLedger(loaded, saved));
  t.same(loaded.slots, m.ledger.slots);
  t.same(loaded.entries, m.ledger.entries);
  t.equal(loaded.latestMs, m.ledger.latestMs);
  t.notOk(loadLedger(emptyLedger(), { records: 'nope' }), 'a shape that is not one is refused');
  t.notOk(loadLedger(emptyLedger(), { records: [], slots: [{ ms: -1 }] }));
  clock.now += 30 * day;
  const later = emptyLedger(() => clock.now);
  loadLedger(later, saved);
  t.ok(
    later.slots.every((s) => s.ms >= clock.now - 92 * day),
    'sums past the longest window are dropped',
  );
});
