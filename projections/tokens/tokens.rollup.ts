/**
 * `/tokens/breakdown` (spec "Token rollup"): totals and lists over the last `since_days` × 24 h of spend
 * records. Every list sorts by `total_tokens` descending (ties by key), `by_turn` by `ended_at` descending.
 */
import type { SpendRecord } from '../../schema/index.js';
import { clampInt, textParam } from '../query/params.js';
import { addTo, byPhaseAndModel, groupRows, zeroRow, type TokenRow } from './token-rows.js';
import { ledgerRange, type TokenLedger } from './tokens.ledger.js';
import { instantMs } from '../time/instants.js';

export const agentPhaseKeys = ['plan', 'execute', 'review', 'auxiliary'] as const;

export interface RollupParams {
  readonly since_days: number;
  readonly agent_role: string | null;
  readonly recent_turns: number;
}

/** Defaults and clamps of the spec's Limits table: since_days 7 in 1..30, recent_turns 50 (0..500). */
export function rollupParams(query: URLSearchParams): RollupParams {
  return {
    since_days: clampInt(query.get('since_days'), 7, 1, 30),
    agent_role: textParam(query.get('agent_role')),
    recent_turns: clampInt(query.get('recent_turns'), 50, 0, 500),
  };
}

/** A seat filter matches the role (display name) or the handle. */
export const matchesSeat = (filter: string | null) => (r: Pick<SpendRecord, 'role' | 'handle'>) =>
  filter === null || r.role === filter || r.handle === filter;

/** `by_phase` map of an agent or a turn: the four spec keys always, other phases when they occur. */
function phaseMap(records: SpendRecord[]): Record<string, TokenRow> {
  const map: Record<string, TokenRow> = Object.fromEntries(agentPhaseKeys.map((k) => [k, zeroRow()]));
  for (const r of records) addTo((map[r.phase] ??= zeroRow()), r);
  return map;
}

function groupBy<K>(records: SpendRecord[], keyOf: (r: SpendRecord) => K | null): Map<K, SpendRecord[]> {
  const out = new Map<K, SpendRecord[]>();
  for (const r of records) {
    const k = keyOf(r);
    if (k === null) continue;
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

const byTotal = <T extends TokenRow>(a: T, b: T): number => b.total_tokens - a.total_tokens;

/** A completed turn's own start and end, as the agents read model knows them. */
export type TurnTimes = (
  handle: string,
  turnId: string,
) => { readonly started_at: string; readonly ended_at: string; readonly ended_ms: number } | undefined;

/**
 * `by_turn` rows carry the turn's own start and end when `turnTimes` knows the turn (what `/agents/{id}`
 * says of it); otherwise the first and last of its spend records.
 */
export function tokenBreakdown(ledger: TokenLedger, params: RollupParams, turnTimes?: TurnTimes) {
  const now = ledger.now();
  const records = ledgerRange(ledger, now - params.since_days * 86_400_000).filter(
    matchesSeat(params.agent_role),
  );
  const totals = zeroRow();
  let through: number | null = null;
  let throughText = '';
  for (const r of records) {
    addTo(totals, r);
    const ms = instantMs(r.timestamp);
    if (ms !== null && (through === null || ms > through)) {
      through = ms;
      throughText = r.timestamp;
    }
  }
  // Spend on no seat's behalf (empty handle) counts in the totals, phases and workers, in no agent's row.
  const agents = [...groupBy(records, (r) => (r.handle === '' ? null : r.handle))].map(([handle, list]) => {
    const row = zeroRow();
    for (const r of list) addTo(row, r);
    const first = list[list.length - 1] as SpendRecord;
    return { role: first.role, handle, agent_id: first.agent_id, ...row, by_phase: phaseMap(list) };
  });
  const turns = [
    ...groupBy(records, (r) => (r.turn_id === null ? null : `${r.handle}\u0000${r.turn_id}`)),
  ].map(([, list]) => {
    const row = zeroRow();
    let startMs = Infinity;
    let endMs = -Infinity;
    let started = '';
    let ended = '';
    for (const r of list) {
      addTo(row, r);
      const ms = instantMs(r.timestamp) ?? 0;
      if (ms < startMs) [startMs, started] = [ms, r.timestamp];
      if (ms > endMs) [endMs, ended] = [ms, r.timestamp];
    }
    const last = list[list.length - 1] as SpendRecord;
    const own = turnTimes?.(last.handle, last.turn_id as string);
    return {
      turn_id: last.turn_id as string,
      role: last.role,
      handle: last.handle,
      agent_id: last.agent_id,
      started_at: own?.started_at ?? started,
      ended_at: own?.ended_at ?? ended,
      endMs: own?.ended_ms ?? endMs,
      ...row,
      by_phase: phaseMap(list),
    };
  });
  turns.sort((a, b) => b.endMs - a.endMs || (a.turn_id < b.turn_id ? -1 : 1));
  return {
    since_days: params.since_days,
    agent_role: params.agent_role ?? '',
    totals,
    ...byPhaseAndModel(records),
    by_worker: groupRows(
      records,
      (r) => (r.phase === 'auxiliary' ? (r.worker ?? 'unknown') : null),
      (r) => ({ worker: r.worker ?? 'unknown' }),
    ),
    by_agent: agents.sort((a, b) => byTotal(a, b) || (a.handle < b.handle ? -1 : 1)),
    by_turn: turns.slice(0, params.recent_turns).map(({ endMs: _e, ...t }) => t),
    aggregated_through: throughText,
  };
}
