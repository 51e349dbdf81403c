/**
 * `/tokens/breakdown` (spec "Token rollup"): totals and lists over the last `since_days` × 24 h of spend
 * records. Every list sorts by `total_tokens` descending (ties by key), `by_turn` by `ended_at` descending.
 */
import { clampInt, textParam } from '../query/params.js';
import { firstInOrder } from '../query/first.js';
import { phaseMap, sortedRows } from './rollup-fold.js';
import { placedBefore, type TurnFold } from './rollup-index.js';
import type { TokenRow } from './token-rows.js';
import type { TokenLedger } from './tokens.ledger.js';

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

const byTotal = <T extends TokenRow>(a: T, b: T): number => b.total_tokens - a.total_tokens;

/** A completed turn's own start and end, as the agents read model knows them. */
export type TurnTimes = (
  handle: string,
  turnId: string,
) => { readonly started_at: string; readonly ended_at: string; readonly ended_ms: number } | undefined;

/**
 * `by_turn` rows carry the turn's own start and end when `turnTimes` knows the turn (what `/agents/{id}`
 * says of it); otherwise the first and last of its spend records. The sums come from the ledger's kept
 * sums of hours, days and turns (rollup-index.ts), the same as folding every record of the window.
 */
export function tokenBreakdown(ledger: TokenLedger, params: RollupParams, turnTimes?: TurnTimes) {
  const fromMs = ledger.now() - params.since_days * 86_400_000;
  const sums = ledger.rollup.fold(ledger.entries, fromMs, params.agent_role);
  const turns = ledger.rollup.turnFolds(fromMs, params.agent_role);
  // Newest first: turns appear in about the order they end, so most are compared once and passed over.
  const candidates: Array<{ g: TurnFold; own: ReturnType<TurnTimes>; endMs: number }> = [];
  for (let i = turns.length - 1; i >= 0; i -= 1) {
    const g = turns[i] as TurnFold;
    const own = turnTimes?.(g.last.handle, g.turnId);
    candidates.push({ g, own, endMs: own?.ended_ms ?? g.endMs });
  }
  // Latest end first, ties by turn id, then by where the turn first appears: only the rows shown are ordered.
  const recent = firstInOrder(
    candidates,
    params.recent_turns,
    ({ g: a, endMs: aEnd }, { g: b, endMs: bEnd }) =>
      aEnd > bEnd ||
      (aEnd === bEnd &&
        (a.turnId < b.turnId || (a.turnId === b.turnId && placedBefore(ledger.entries, a.first, b.first)))),
  );
  const agentRows = [...sums.agents].map(([handle, g]) => ({
    role: g.last.role,
    handle,
    agent_id: g.last.agent_id,
    ...g.row,
    by_phase: phaseMap(g.phases),
  }));
  return {
    since_days: params.since_days,
    agent_role: params.agent_role ?? '',
    totals: sums.totals,
    by_phase: sortedRows(sums.phases).map(([phase, row]) => ({ phase, ...row })),
    by_model: sortedRows(sums.models).map(([model, row]) => ({ model, ...row })),
    by_worker: sortedRows(sums.workers).map(([worker, row]) => ({ worker, ...row })),
    by_agent: agentRows.sort((a, b) => byTotal(a, b) || (a.handle < b.handle ? -1 : 1)),
    by_turn: recent.map(({ g, own }) => ({
      turn_id: g.turnId,
      role: g.last.role,
      handle: g.last.handle,
      agent_id: g.last.agent_id,
      started_at: own?.started_at ?? g.started,
      ended_at: own?.ended_at ?? g.ended,
      ...g.row,
      by_phase: phaseMap(g.phases),
    })),
    aggregated_through: sums.throughText,
  };
}
