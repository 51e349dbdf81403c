import t from 'tap';
import { ReadModels } from '../../../projections/index.js';
import type { Company } from '../../../schema/index.js';
import { companyDoc, event, spend, turnCompleted } from '../fixtures/readmodels.js';

const now = Date.parse('2026-11-23T12:00:00Z');
const day = 86_400_000;
const at = (msAgo: number) => new Date(now - msAgo).toISOString();

function models(doc: Company = companyDoc): ReadModels {
  const m = new ReadModels({ now: () => now });
  m.setCompany(doc, 'rev');
  return m;
}

t.test(
  'the rollup has every list, sorted by total_tokens descending; by_turn by ended_at descending',
  async (t) => {
    const m = models();
    m.applySpend(
      spend({
        handle: 'cto',
        role: 'CTO',
        turn_id: 't1',
        phase: 'plan',
        model: 'a',
        total_tokens: 10,
        timestamp: at(5 * 3_600_000),
      }),
    );
    m.applySpend(
      spend({
        handle: 'cto',
        role: 'CTO',
        turn_id: 't1',
        phase: 'execute',
        model: 'b',
        total_tokens: 50,
        timestamp: at(4 * 3_600_000),
      }),
    );
    m.applySpend(
      spend({
        handle: 'ceo',
        role: 'CEO',
        turn_id: 't2',
        phase: 'review',
        model: 'a',
        total_tokens: 30,
        timestamp: at(3 * 3_600_000),
      }),
    );
    m.applySpend(
      spend({
        handle: 'ceo',
        role: 'CEO',
        turn_id: null,
        phase: 'auxiliary',
        worker: 'persist_decider',
        model: 'a',
        total_tokens: 5,
        timestamp: at(2 * 3_600_000),
      }),
    );
    m.applySpend(
      spend({
        handle: 'ceo',
        role: 'CEO',
        turn_id: null,
        phase: 'auxiliary',
        worker: 'skill_synthesizer',
        model: 'a',
        total_tokens: 7,
        timestamp: at(1 * 3_600_000),
      }),
    );
    const r = m.tokenBreakdown(new URLSearchParams());
    t.equal(r.since_days, 7);
    t.same(r.totals, {
      input_tokens: 50,
      output_tokens: 25,
      total_tokens: 102,
      calls: 5,
      estimated_tokens: 0,
    });
    t.same(
      r.by_phase.map((x) => [x.phase, x.total_tokens]),
      [
        ['execute', 50],
        ['review', 30],
        ['auxiliary', 12],
        ['plan', 10],
      ],
    );
    t.same(
      r.by_model.map((x) => [x.model, x.total_tokens]),
      [
        ['a', 52],
        ['b', 50],
      ],
    );
    t.same(
      r.by_worker.map((x) => [x.worker, x.total_tokens]),
      [
        ['skill_synthesizer', 7],
        ['persist_decider', 5],
      ],
    );
    t.same(
      r.by_agent.map((x) => [x.handle, x.total_tokens]),
      [
        ['cto', 60],
        ['ceo', 42],
      ],
    );
    t.same(Object.keys(r.by_agent[0]!.by_phase).sort(), ['auxiliary', 'execute', 'plan', 'review']);
    t.equal(r.by_agent[1]!.by_phase['auxiliary']!.total_tokens, 12);
    t.same(
      r.by_turn.map((x) => x.turn_id),
      ['t2', 't1'],
      'newest ended_at first',
    );
    t.match(r.by_turn[1], {
      role: 'CTO',
      handle: 'cto',
      started_at: at(5 * 3_600_000),
      ended_at: at(4 * 3_600_000),
      total_tokens: 60,
    });
    t.equal(r.aggregated_through, at(1 * 3_600_000));
  },
);

t.test(
  'since_days defaults to 7 and clamps to 1..30; agent_role filters; recent_turns limits by_turn',
  async (t) => {
    const m = models();
    for (const d of [0.5, 2, 8, 29, 40])
      m.applySpend(spend({ turn_id: `t${d}`, timestamp: at(d * day), total_tokens: 1 }));
    m.applySpend(
      spend({ handle: 'ceo', role: 'CEO', turn_id: 'c', timestamp: at(0.1 * day), total_tokens: 1 }),
    );
    const calls = (q: string) => m.tokenBreakdown(new URLSearchParams(q)).totals.calls;
    t.equal(calls(''), 3, 'default 7 days');
    t.equal(calls('since_days=0'), 2, 'clamped up to 1');
    t.equal(calls('since_days=-4'), 2);
    t.equal(calls('since_days=99'), 5, 'clamped down to 30');
    t.equal(m.tokenBreakdown(new URLSearchParams('since_days=99')).since_days, 30);
    t.equal(calls('since_days=abc'), 3, 'not a number reads as the default');
    t.equal(calls('since_days=30&agent_role=CEO'), 1, 'by role name');
    t.equal(calls('since_days=30&agent_role=cto'), 4, 'by handle');
    t.equal(calls('since_days=30&agent_role=CTO'), 4, 'by role name');
    t.equal(calls('since_days=30&agent_role=Ceo'), 1, 'by handle typed in any case (handles are lower-case)');
    t.equal(calls('since_days=30&agent_role=ceo'), 1, 'by handle');
    t.equal(calls('since_days=30&agent_role=cEo'), 1);
    const turns = (q: string) => m.tokenBreakdown(new URLSearchParams(q)).by_turn.map((r) => r.turn_id);
    t.same(turns('since_days=30&agent_role=CEO'), ['c'], 'by_turn filters alike');
    t.same(turns('since_days=30&agent_role=Ceo'), ['c']);
    const series = (q: string) => m.tokenSeries(new URLSearchParams(q));
    const total = (q: string) => {
      const answer = series(q);
      return 'invalid' in answer ? -1 : answer.buckets.reduce((n, b) => n + b.total_tokens, 0);
    };
    t.equal(total('agent_role=Ceo'), 1, '/tokens/series takes a handle in any case too');
    t.equal(total('agent_role=CEO'), 1);
    t.equal(m.tokenBreakdown(new URLSearchParams('since_days=30&recent_turns=2')).by_turn.length, 2);
    t.equal(m.tokenBreakdown(new URLSearchParams('since_days=30')).by_turn.length, 5);
    t.equal(models().tokenBreakdown(new URLSearchParams()).aggregated_through, '', 'empty when none');
  },
);

t.test("agent_role takes a seat's agent_id UUID in any case, as /agents/{id} does", async (t) => {
  const m = models();
  m.applySpend(spend({ turn_id: 'x', total_tokens: 4, timestamp: at(3_600_000) }));
  m.applySpend(
    spend({ handle: 'ceo', role: 'CEO', turn_id: 'c', total_tokens: 1, timestamp: at(3_600_000) }),
  );
  const uuid = m.agentList().find((r) => r.id === 'ceo')?.agent_id ?? '';
  t.match(uuid, /^[0-9a-f-]{36}$/, 'the UUID an /agents row names');
  const breakdown = (role: string) => m.tokenBreakdown(new URLSearchParams({ agent_role: role }));
  for (const id of [uuid, uuid.toUpperCase()]) {
    const r = breakdown(id);
    t.equal(r.totals.total_tokens, 1, `${id}: the seat's spend alone`);
    t.same(
      r.by_turn.map((x) => x.turn_id),
      ['c'],
      'by_turn filters alike',
    );
    t.equal(r.agent_role, id, 'the parameter is echoed as given');
    const s = m.tokenSeries(new URLSearchParams({ agent_role: id }));
    if ('invalid' in s) throw new Error(s.invalid);
    t.equal(
      s.buckets.reduce((n, b) => n + b.total_tokens, 0),
      1,
      '/tokens/series takes it too',
    );
  }
  const none = breakdown('00000000-0000-4000-8000-000000000000');
  t.equal(none.totals.total_tokens, 0, 'a UUID naming no seat matches nothing, as an unknown handle');
});

t.test(
  'series buckets are company days in the company timezone, oldest first, split into bands',
  async (t) => {
    const m = models();
    // 2026-11-22T23:30Z is 00:30 on the 23rd in Berlin.
    m.applySpend(spend({ phase: 'plan', total_tokens: 10, timestamp: '2026-11-22T23:30:00Z' }));
    m.applySpend(spend({ phase: 'review', total_tokens: 20, timestamp: '2026-11-22T22:30:00Z' }));
    m.applySpend(spend({ phase: 'plan', total_tokens: 5, timestamp: '2026-11-21T12:00:00Z' }));
    const s = m.tokenSeries(new URLSearchParams('buckets=3'));
    if ('invalid' in s) throw new Error(s.invalid);
    t.equal(s.timezone, 'Europe/Berlin');
    t.same(
      s.buckets.map((b) => [b.label, b.total_tokens]),
      [
        ['2026-11-21', 5],
        ['2026-11-22', 20],
        ['2026-11-23', 10],
      ],
    );
    t.equal(s.buckets[2]!.start, '2026-11-22T23:00:00.000Z', 'a Berlin day starts at 23:00Z in winter');
    t.same(s.buckets[1]!.bands, { review: 20 });
    t.same(s.bands, ['review', 'plan']);
    const w = m.tokenSeries(new URLSearchParams('bucket=week&buckets=2&band=agent'));
    if ('invalid' in w) throw new Error(w.invalid);
    t.same(
      w.buckets.map((b) => b.label),
      ['2026-W47', '2026-W48'],
    );
    t.equal(
      w.buckets[1]!.start,
      '2026-11-22T23:00:00.000Z',
      'ISO week starts Monday 23 Nov, Berlin midnight',
    );
    t.same(w.buckets[0]!.bands, { cto: 25 });
    t.same(w.buckets[1]!.bands, { cto: 10 });
    t.match(m.tokenSeries(new URLSearchParams('bucket=month')), { invalid: /bucket/ });
    t.match(m.tokenSeries(new URLSearchParams('band=colour')), { invalid: /band/ });
    const clamped = m.tokenSeries(new URLSearchParams('buckets=1000'));
    t.equal('buckets' in clamped && clamped.buckets.length, 90);
  },
);

t.test('a by_turn row carries the turn own start and end once its completion is known', async (t) => {
  const m = models();
  const call = (msAgo: number, total: number) =>
    spend({ handle: 'cto', role: 'CTO', turn_id: 't1', phase: 'plan', model: 'a', total_tokens: total, timestamp: at(msAgo) }); // prettier-ignore
  m.applySpend(call(60_000, 10));
  m.applySpend(call(50_000, 20));
  t.match(m.tokenBreakdown(new URLSearchParams()).by_turn[0], {
    started_at: at(60_000),
    ended_at: at(50_000),
  });
  m.applyEvent(
    event(
      'agent_turn_completed',
      'cto',
      { ...turnCompleted('t1', at(61_000)), ended_at: at(49_000), duration_ms: 12_000 },
      at(49_000),
    ),
  );
  t.match(
    m.tokenBreakdown(new URLSearchParams()).by_turn[0],
    { turn_id: 't1', started_at: at(61_000), ended_at: at(49_000), total_tokens: 30 },
    'the times /agents/{id} shows for the turn',
  );
});

t.test('budgets: caps per calendar month, 0 = unlimited, refused scopes named', async (t) => {
  const m = models();
  m.applySpend(spend({ handle: 'cto', total_tokens: 500, timestamp: '2026-11-10T00:00:00Z' }));
  m.applySpend(spend({ handle: 'ceo', role: 'CEO', total_tokens: 200, timestamp: '2026-11-11T00:00:00Z' }));
  m.applySpend(spend({ handle: 'ceo', total_tokens: 9999, timestamp: '2026-10-31T22:59:00Z' })); // October in Berlin
  const b = m.budgets();
  t.match(b.window, {
    kind: 'month',
    start: '2026-10-31T23:00:00.000Z',
    end: '2026-11-30T23:00:00.000Z',
    timezone: 'Europe/Berlin',
  });
  t.match(b.org, { cap: 1000, used: 700, remaining: 300, refused: false });
  t.match(
    b.seats.find((s) => s.handle === 'cto'),
    { cap: 500, used: 500, remaining: 0, refused: true },
  );
  t.match(
    b.seats.find((s) => s.handle === 'ceo'),
    { cap: 0, used: 200, remaining: null, ratio: null, refused: false },
  );
  t.notOk(
    b.seats.some((s) => s.handle === 'dana'),
    'human seats have no budget',
  );
  t.same(b.refused, ['seat:cto']);
  m.applySpend(spend({ handle: 'ceo', total_tokens: 300, timestamp: '2026-11-12T00:00:00Z' }));
  t.same(m.budgets().refused, ['org', 'seat:cto']);
  t.equal(m.agent('ceo')!.budget.refused, 'org');
  const unlimited = models({ ...companyDoc, token_budget: 0 });
  unlimited.applySpend(spend({ handle: 'ceo', total_tokens: 10_000_000, timestamp: '2026-11-12T00:00:00Z' }));
  t.match(unlimited.budgets().org, { cap: 0, remaining: null, refused: false });
});

t.test('a seat the org meter stops is pushed on the tick though it spent nothing itself', async (t) => {
  const m = models();
  const agents = m.sections().find((s) => s.name === 'agents')!;
  const pushed: string[][] = [];
  agents.subscribe((data, mode) => mode === 'merge' && pushed.push(Object.keys(data as object).sort()));
  m.tick();
  t.same(pushed, [], 'nothing moved yet');
  // The CEO alone spends past the org's 1,000 tokens: every agent seat is now stopped for budget.
  m.applySpend(spend({ handle: 'ceo', total_tokens: 1_200, timestamp: '2026-11-12T00:00:00Z' }));
  m.tick();
  t.same(
    pushed.flat().sort(),
    ['ceo', 'cto', 'dev-one'],
    'the CEO for its spend, the others for their status',
  );
  for (const seat of ['cto', 'dev-one'])
    t.match(m.agent(seat), { activity: 'stopped', stopped_reason: 'budget', budget: { refused: 'org' } });
  pushed.length = 0;
  m.tick();
  t.same(pushed, [], 'an unchanged status is not pushed again');
});
