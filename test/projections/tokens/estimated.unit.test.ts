/**
 * Spend records with `estimated: true` (a provider's stream cut before it reported its usage) count in every
 * total like any record; each read also says how much of its figure is estimated (`estimated_tokens`: the
 * `total_tokens` of such records, 0 when none), in every row, bucket and meter it counts them in.
 */
import t from 'tap';
import { ReadModels } from '../../../projections/index.js';
import { loadLedger, saveLedger } from '../../../projections/tokens/tokens.ledger.js';
import { companyDoc, spend } from '../fixtures/readmodels.js';

const now = Date.parse('2026-11-23T12:00:00Z');
const hour = 3_600_000;
const at = (msAgo: number) => new Date(now - msAgo).toISOString();

function spent(): ReadModels {
  const m = new ReadModels({ now: () => now });
  m.setCompany(companyDoc, 'rev');
  // cto: 15 reported and 100 estimated in turn t1; ceo: 30 reported.
  m.applySpend(
    spend({ handle: 'cto', turn_id: 't1', phase: 'plan', total_tokens: 15, timestamp: at(3 * hour) }),
  );
  m.applySpend(
    spend({
      handle: 'cto',
      turn_id: 't1',
      phase: 'execute',
      model: 'b',
      total_tokens: 100,
      estimated: true,
      timestamp: at(2 * hour),
    }),
  );
  m.applySpend(spend({ handle: 'ceo', role: 'CEO', turn_id: 't2', total_tokens: 30, timestamp: at(hour) }));
  // Spend on no seat's behalf, estimated: the org's figures only.
  m.applySpend(
    spend({
      handle: '',
      role: '',
      agent_id: '',
      turn_id: null,
      phase: 'auxiliary',
      worker: 'persist_decider',
      total_tokens: 7,
      estimated: true,
      timestamp: at(hour),
    }),
  );
  return m;
}

t.test('the rollup says how much of each figure is estimated', async (t) => {
  const b = spent().tokenBreakdown(new URLSearchParams());
  t.match(b.totals, { total_tokens: 152, estimated_tokens: 107, calls: 4 });
  t.same(
    b.by_phase.map((r) => [r.phase, r.total_tokens, r.estimated_tokens]),
    [
      ['execute', 100, 100],
      ['plan', 45, 0],
      ['auxiliary', 7, 7],
    ],
  );
  t.same(
    b.by_model.map((r) => [r.model, r.estimated_tokens]),
    [
      ['b', 100],
      ['gpt-main', 7],
    ],
  );
  t.same(
    b.by_worker.map((r) => [r.worker, r.estimated_tokens]),
    [['persist_decider', 7]],
  );
  t.same(
    b.by_agent.map((r) => [
      r.handle,
      r.total_tokens,
      r.estimated_tokens,
      r.by_phase['execute']?.estimated_tokens,
    ]),
    [
      ['cto', 115, 100, 100],
      ['ceo', 30, 0, 0],
    ],
  );
  t.same(
    b.by_turn.map((r) => [r.turn_id, r.estimated_tokens]),
    [
      ['t2', 0],
      ['t1', 100],
    ],
  );
  const filtered = spent().tokenBreakdown(new URLSearchParams({ agent_role: 'ceo' }));
  t.match(filtered.totals, { total_tokens: 30, estimated_tokens: 0 }, 'none estimated: 0');
});

t.test('the series says it per bucket, older quarter-hour sums and their checkpoint included', async (t) => {
  const m = spent();
  // Older than the 32 whole days: folded into a quarter hour's sum.
  m.applySpend(spend({ handle: 'cto', total_tokens: 50, estimated: true, timestamp: at(40 * 24 * hour) }));
  m.applySpend(spend({ handle: 'cto', total_tokens: 5, timestamp: at(40 * 24 * hour) }));
  const series = m.tokenSeries(new URLSearchParams({ buckets: '60' }));
  if ('invalid' in series) throw new Error(series.invalid);
  const today = series.buckets.at(-1)!;
  t.match(today, { total_tokens: 152, estimated_tokens: 107 });
  const old = series.buckets.find((b) => b.total_tokens === 55);
  t.match(old, { estimated_tokens: 50 }, 'the sum keeps what of it was estimated');
  t.equal(
    series.buckets.reduce((n, b) => n + b.estimated_tokens, 0),
    157,
  );

  const again = new ReadModels({ now: () => now });
  again.setCompany(companyDoc, 'rev');
  t.ok(loadLedger(again.ledger, JSON.parse(JSON.stringify(saveLedger(m.ledger)))));
  t.same(again.tokenSeries(new URLSearchParams({ buckets: '60' })), series, 'a checkpoint keeps it');
});

t.test('the budgets and the live window say it too', async (t) => {
  const m = spent();
  const budgets = m.budgets();
  t.match(budgets.org, { used: 152, estimated_tokens: 107 });
  t.same(
    budgets.seats.map((s) => [s.handle, s.used, s.estimated_tokens]),
    [
      ['ceo', 30, 0],
      ['cto', 115, 100],
      ['dev-one', 0, 0],
    ],
  );
  const window = m.window.summary();
  t.match(window.totals, { total_tokens: 152, estimated_tokens: 107 });
  t.same(
    window.by_agent.map((r) => [r.handle, r.estimated_tokens]),
    [
      ['cto', 100],
      ['ceo', 0],
    ],
  );
  const cto = m.agent('cto');
  t.match(cto?.tokens, { total_tokens: 115, estimated_tokens: 100 }, "the seat's 24 h totals");
  t.match(cto?.budget, { seat: { used: 115, estimated_tokens: 100 }, org: { estimated_tokens: 107 } });
});
