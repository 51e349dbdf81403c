/**
 * `/tokens/breakdown` answers from sums the ledger keeps per hour, day and turn: whatever the order records
 * arrive in, however the clock moves between requests, whichever records leave the window or the ledger, the
 * whole answer (lists, their order and ties, `by_phase` key order, turns and their rows) is the one a fold
 * over every record of the window gives.
 */
import fc from 'fast-check';
import t from 'tap';
import { instantMs, type SpendRecord } from '../../../schema/index.js';
import {
  applySpend,
  emptyLedger,
  ledgerRange,
  pruneLedger,
} from '../../../projections/tokens/tokens.ledger.js';
import {
  tokenBreakdown,
  type RollupParams,
  type TurnTimes,
} from '../../../projections/tokens/tokens.rollup.js';
import { spend } from '../fixtures/readmodels.js';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
const start = Date.parse('2026-11-01T00:00:00Z');
const handles = ['', 'cto', 'ceo', 'dev'];
const phases = ['plan', 'execute', 'review', 'subagent', 'auxiliary', 'judge'] as const;

type Row = { input_tokens: number; output_tokens: number; total_tokens: number; calls: number; estimated_tokens: number }; // prettier-ignore
const sums = (list: readonly SpendRecord[]): Row => ({
  input_tokens: list.reduce((n, r) => n + r.input_tokens, 0),
  output_tokens: list.reduce((n, r) => n + r.output_tokens, 0),
  total_tokens: list.reduce((n, r) => n + r.total_tokens, 0),
  calls: list.length,
  estimated_tokens: list.reduce((n, r) => n + (r.estimated === true ? r.total_tokens : 0), 0),
});
const ms = (r: SpendRecord): number => instantMs(r.timestamp) ?? 0;
const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Groups `list` by `keyOf` (null: left out), in the order each key first appears. */
function groups(
  list: readonly SpendRecord[],
  keyOf: (r: SpendRecord) => string | null,
): Map<string, SpendRecord[]> {
  const out = new Map<string, SpendRecord[]>();
  for (const r of list) {
    const key = keyOf(r);
    if (key !== null) out.set(key, [...(out.get(key) ?? []), r]);
  }
  return out;
}

/** A list row per key, by total descending, then key. */
function list(records: readonly SpendRecord[], name: string, keyOf: (r: SpendRecord) => string | null) {
  return [...groups(records, keyOf)]
    .map(([key, rs]) => ({ key, row: { [name]: key, ...sums(rs) } }))
    .sort((a, b) => b.row.total_tokens - a.row.total_tokens || byKey(a.key, b.key))
    .map((x) => x.row);
}

/** The four spec keys, then other phases in the order they first appear. */
function byPhase(rs: readonly SpendRecord[]) {
  const out: Record<string, Row> = {};
  for (const k of ['plan', 'execute', 'review', 'auxiliary', ...rs.map((r) => r.phase)])
    out[k] ??= sums(rs.filter((r) => r.phase === k));
  return out;
}

/** The answer straight from every record of the window, in placed order. */
function expected(records: readonly SpendRecord[], p: RollupParams, turnTimes: TurnTimes) {
  const turns = [
    ...groups(records, (r) => (r.turn_id === null ? null : `${r.handle}\u0000${r.turn_id}`)).values(),
  ].map((rs) => {
    const last = rs[rs.length - 1] as SpendRecord;
    const first = rs.reduce((a, r) => (ms(r) < ms(a) ? r : a));
    const end = rs.reduce((a, r) => (ms(r) > ms(a) ? r : a));
    const own = turnTimes(last.handle, last.turn_id as string);
    return {
      endMs: own?.ended_ms ?? ms(end),
      row: {
        turn_id: last.turn_id as string,
        role: last.role,
        handle: last.handle,
        agent_id: last.agent_id,
        started_at: own?.started_at ?? first.timestamp,
        ended_at: own?.ended_at ?? end.timestamp,
        ...sums(rs),
        by_phase: byPhase(rs),
      },
    };
  });
  // A stable sort: equal ends and ids keep the order the turns first appeared in.
  turns.sort((a, b) => b.endMs - a.endMs || byKey(a.row.turn_id, b.row.turn_id));
  const agents = [...groups(records, (r) => (r.handle === '' ? null : r.handle))].map(([handle, rs]) => {
    const last = rs[rs.length - 1] as SpendRecord;
    return { role: last.role, handle, agent_id: last.agent_id, ...sums(rs), by_phase: byPhase(rs) };
  });
  agents.sort((a, b) => b.total_tokens - a.total_tokens || byKey(a.handle, b.handle));
  const latest = records.reduce<SpendRecord | null>((a, r) => (a === null || ms(r) > ms(a) ? r : a), null);
  return {
    since_days: p.since_days,
    agent_role: p.agent_role ?? '',
    totals: sums(records),
    by_phase: list(records, 'phase', (r) => r.phase),
    by_model: list(records, 'model', (r) => r.model),
    by_worker: list(records, 'worker', (r) => (r.phase === 'auxiliary' ? (r.worker ?? 'unknown') : null)),
    by_agent: agents,
    by_turn: turns.slice(0, p.recent_turns).map((x) => x.row),
    aggregated_through: latest?.timestamp ?? '',
  };
}

/** A record stamped `stampAgo` before the clock (negative: ahead of it), stored `storedAgo` before it. */
const arrival = fc.record({
  kind: fc.constant('spend' as const),
  handle: fc.constantFrom(...handles),
  // A seat's role may change, even within a turn.
  renamed: fc.boolean(),
  turn: fc.constantFrom(null, 't1', 't2', 't3'),
  phase: fc.constantFrom(...phases),
  model: fc.constantFrom('a', 'b', 'c'),
  worker: fc.constantFrom(null, 'persist_decider', 'skill_synthesizer'),
  input: fc.integer({ min: 0, max: 5 }),
  output: fc.integer({ min: 0, max: 3 }),
  // Counts a provider's cut stream left to be estimated.
  estimated: fc.boolean(),
  // Few distinct instants, many on hour and day edges, so stamps and windows' edges tie; most within a
  // few days, so an hour or a day holds several records.
  stampAgo: fc
    .tuple(
      fc.constantFrom(0, 0, 0, 1, 1, 2, 6, 7, 29, 30, 31, 33),
      fc.constantFrom(0, 1, 2, 5, 23),
      fc.constantFrom(0, 0, 1, 7 * minute, 59 * minute, -hour),
    )
    .map(([days, hours, jitter]) => days * day + hours * hour + jitter),
  storedAgo: fc.constantFrom(0, 0, 0, 1, 30 * minute, 3 * hour),
  // The same instant written another way: which text is shown follows placed order.
  offset: fc.boolean(),
});
const advance = fc.record({
  kind: fc.constant('advance' as const),
  by: fc.oneof(
    fc.constantFrom(1, 7 * minute, hour, 5 * hour, day, 3 * day),
    fc.integer({ min: 0, max: 2 * day }),
  ),
});
const prune = fc.record({ kind: fc.constant('prune' as const) });
// Mostly the same few questions, so one request finds the sums another left.
const params = fc.record({
  since_days: fc.oneof(fc.constantFrom(1, 2, 3, 7, 30), fc.integer({ min: 1, max: 30 })),
  agent_role: fc.constantFrom(null, null, null, 'cto', 'CEO', 'DEV2', 'nobody'),
  recent_turns: fc.oneof(fc.integer({ min: 0, max: 8 }), fc.constant(500)),
});
const ask = fc.record({ kind: fc.constant('ask' as const), params: fc.array(params, { minLength: 1, maxLength: 3 }) }); // prettier-ignore
const step = fc.oneof({ arbitrary: arrival, weight: 6 }, { arbitrary: advance, weight: 2 }, { arbitrary: prune, weight: 1 }, { arbitrary: ask, weight: 3 }); // prettier-ignore
const own = fc.record({ handle: fc.constantFrom(...handles), turn: fc.constantFrom('t1', 't2', 't3'), ago: fc.constantFrom(0, hour, 2 * day) }); // prettier-ignore

function stampText(at: number, offset: boolean): string {
  const iso = new Date(at).toISOString();
  return offset ? iso.replace('Z', '+00:00') : iso;
}

t.test(
  'the kept sums answer as a fold over every record of the window, as records arrive and time moves',
  async (t) => {
    let asked = 0;
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), fc.array(own, { maxLength: 3 }), (steps, owns) => {
        const clock = { now: start + 40 * day + 7 * minute };
        const ledger = emptyLedger(() => clock.now);
        const turnTimes: TurnTimes = (handle, turnId) => {
          const o = owns.find((x) => x.handle === handle && x.turn === turnId);
          const at = start + 40 * day - (o?.ago ?? 0);
          return (
            o && {
              started_at: new Date(start).toISOString(),
              ended_at: new Date(at).toISOString(),
              ended_ms: at,
            }
          );
        };
        const check = (p: RollupParams): boolean => {
          asked += 1;
          const records = ledgerRange(ledger, clock.now - p.since_days * day).filter(
            (r) =>
              p.agent_role === null || r.handle === p.agent_role.toLowerCase() || r.role === p.agent_role,
          );
          const got = JSON.stringify(tokenBreakdown(ledger, p, turnTimes));
          return got === JSON.stringify(expected(records, p, turnTimes));
        };
        let n = 0;
        for (const s of steps) {
          if (s.kind === 'advance') clock.now += s.by;
          else if (s.kind === 'prune') pruneLedger(ledger);
          else if (s.kind === 'ask') {
            if (!s.params.every(check)) return false;
          } else {
            n += 1;
            const role = s.handle.toUpperCase() + (s.renamed ? '2' : '');
            const record = spend({
              id: `s${n}`,
              handle: s.handle,
              role,
              agent_id: `agent-${s.handle}`,
              turn_id: s.turn,
              phase: s.phase,
              model: s.model,
              worker: s.worker,
              input_tokens: s.input,
              output_tokens: s.output,
              total_tokens: s.input + s.output,
              timestamp: stampText(clock.now - s.stampAgo, s.offset),
              ...(s.estimated ? { estimated: true as const } : {}),
            });
            applySpend(ledger, record, clock.now - s.storedAgo);
          }
        }
        // And once more at the end, with the widest window.
        return check({ since_days: 30, agent_role: null, recent_turns: 500 });
      }),
      { numRuns: 400 },
    );
    t.ok(asked > 400, `${asked} answers agree`);
  },
);
