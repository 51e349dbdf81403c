import fc from 'fast-check';
import t from 'tap';
import { instantMs, type SpendRecord } from '../../../schema/index.js';
import { applySpend, emptyLedger, ledgerRange } from '../../../projections/tokens/tokens.ledger.js';
import {
  tokenBreakdown,
  type RollupParams,
  type TurnTimes,
} from '../../../projections/tokens/tokens.rollup.js';
import { spend } from '../fixtures/readmodels.js';

const now = Date.parse('2026-11-23T12:00:00Z');
const hour = 3_600_000;
const handles = ['', 'cto', 'ceo', 'dev'];
const turnIds = [null, 't1', 't2', 't3', 't4'];
const phases = ['plan', 'execute', 'review', 'auxiliary'] as const;
// Few instants, so ends tie; some stamped ahead of the clock, some with an offset or microseconds.
const stamps = [
  new Date(now - 40 * 24 * hour).toISOString(),
  new Date(now - 3 * 24 * hour).toISOString(),
  new Date(now - 2 * hour).toISOString(),
  new Date(now - hour).toISOString(),
  '2026-11-23T11:00:00+00:00',
  '2026-11-23T11:00:00.000001Z',
  new Date(now + hour).toISOString(),
];

const record = fc.record({
  handle: fc.constantFrom(...handles),
  turn_id: fc.constantFrom(...turnIds),
  phase: fc.constantFrom(...phases),
  model: fc.constantFrom('a', 'b'),
  total_tokens: fc.integer({ min: 0, max: 3 }),
  timestamp: fc.constantFrom(...stamps),
  estimated: fc.constantFrom(undefined, true as const),
});
const own = fc.record({
  handle: fc.constantFrom(...handles),
  turn_id: fc.constantFrom('t1', 't2', 't3'),
  ended: fc.constantFrom(...stamps),
});
const params = fc.record({
  since_days: fc.integer({ min: 1, max: 30 }),
  // A handle, or a role name (the handle upper-cased here), or a handle typed in another case.
  agent_role: fc.constantFrom(null, 'nobody', ...handles.filter((h) => h !== '').flatMap((h) => [h, h.toUpperCase(), h[0]!.toUpperCase() + h.slice(1)])), // prettier-ignore
  recent_turns: fc.integer({ min: 0, max: 6 }),
});

/** The straightforward answer: every turn built and sorted, each stamp parsed where it is read. */
function expected(records: readonly SpendRecord[], p: RollupParams, turnTimes: TurnTimes) {
  const turns = new Map<string, SpendRecord[]>();
  const agents = new Map<string, SpendRecord[]>();
  for (const r of records) {
    if (r.handle !== '') agents.set(r.handle, [...(agents.get(r.handle) ?? []), r]);
    const key = `${r.handle}\u0000${r.turn_id}`;
    if (r.turn_id !== null) turns.set(key, [...(turns.get(key) ?? []), r]);
  }
  const sums = (list: SpendRecord[]) => ({
    input_tokens: list.reduce((n, r) => n + r.input_tokens, 0),
    output_tokens: list.reduce((n, r) => n + r.output_tokens, 0),
    total_tokens: list.reduce((n, r) => n + r.total_tokens, 0),
    calls: list.length,
    estimated_tokens: list.reduce((n, r) => n + (r.estimated === true ? r.total_tokens : 0), 0),
  });
  const byPhase = (list: SpendRecord[]) => {
    const map: Record<string, unknown> = {};
    for (const k of [...phases, ...list.map((r) => r.phase)])
      map[k] ??= sums(list.filter((r) => r.phase === k));
    return map;
  };
  const ms = (r: SpendRecord) => instantMs(r.timestamp) ?? 0;
  const rows = [...turns.values()].map((list) => {
    const last = list[list.length - 1] as SpendRecord;
    const first = list.reduce((a, r) => (ms(r) < ms(a) ? r : a));
    const end = list.reduce((a, r) => (ms(r) > ms(a) ? r : a));
    const known = turnTimes(last.handle, last.turn_id as string);
    return {
      endMs: known?.ended_ms ?? ms(end),
      row: {
        turn_id: last.turn_id,
        role: last.role,
        handle: last.handle,
        agent_id: last.agent_id,
        started_at: known?.started_at ?? first.timestamp,
        ended_at: known?.ended_at ?? end.timestamp,
        ...sums(list),
        by_phase: byPhase(list),
      },
    };
  });
  // Stable: equal ends and ids keep the order the turns first appeared in.
  rows.sort((a, b) => b.endMs - a.endMs || (a.row.turn_id! < b.row.turn_id! ? -1 : a.row.turn_id! > b.row.turn_id! ? 1 : 0)); // prettier-ignore
  const agentRows = [...agents].map(([handle, list]) => {
    const last = list[list.length - 1] as SpendRecord;
    return { role: last.role, handle, agent_id: last.agent_id, ...sums(list), by_phase: byPhase(list) };
  });
  agentRows.sort((a, b) => b.total_tokens - a.total_tokens || (a.handle < b.handle ? -1 : 1));
  const latest = records.reduce<SpendRecord | null>((a, r) => (a === null || ms(r) > ms(a) ? r : a), null);
  return {
    totals: sums([...records]),
    by_agent: agentRows,
    by_turn: rows.slice(0, p.recent_turns).map((r) => r.row),
    aggregated_through: latest?.timestamp ?? '',
  };
}

t.test(
  'the rollup answers as building and sorting every turn would: rows, order, ties, totals',
  async (t) => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 40 }),
        fc.array(own, { maxLength: 3 }),
        params,
        (list, owns, p) => {
          const ledger = emptyLedger(() => now);
          list.forEach((r, i) =>
            applySpend(ledger, spend({ ...r, role: r.handle.toUpperCase(), id: `s${i}` }), now),
          );
          const turnTimes: TurnTimes = (handle, turnId) => {
            const o = owns.find((x) => x.handle === handle && x.turn_id === turnId);
            return (
              o && { started_at: stamps[0] as string, ended_at: o.ended, ended_ms: instantMs(o.ended) ?? 0 }
            );
          };
          const got = tokenBreakdown(ledger, p, turnTimes);
          const records = ledgerRange(ledger, now - p.since_days * 24 * hour).filter(
            (r) =>
              p.agent_role === null || r.handle === p.agent_role.toLowerCase() || r.role === p.agent_role,
          );
          const want = expected(records, p, turnTimes);
          const { totals, by_agent, by_turn, aggregated_through } = got;
          return JSON.stringify({ totals, by_agent, by_turn, aggregated_through }) === JSON.stringify(want);
        },
      ),
      { numRuns: 500 },
    );
    t.pass('500 ledgers agree');
  },
);
