/**
 * `/tokens/breakdown` (spec "Token rollup"): totals and lists over the last `since_days` × 24 h of spend
 * records. Every list sorts by `total_tokens` descending (ties by key), `by_turn` by `ended_at` descending.
 */
import type { SpendRecord } from '../../schema/index.js';
import { clampInt, textParam } from '../query/params.js';
import { addTo, byPhaseAndModel, groupRows, zeroRow, type TokenRow } from './token-rows.js';
import { ledgerEntries, type TokenLedger } from './tokens.ledger.js';
import { firstInOrder } from '../query/first.js';
import { instantMs } from '../time/instants.js';

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

/** The sums of an agent or a turn: its row and `by_phase` map, and its last record (in placed order). */
interface Group {
  readonly row: TokenRow;
  /** The four spec keys always, other phases when they occur. */
  readonly by_phase: Record<string, TokenRow>;
  last: SpendRecord;
}

function newGroup(r: SpendRecord): Group {
  return { row: zeroRow(), by_phase: phaseRows(), last: r };
}

/** The four spec keys of a `by_phase` map, in the spec's order. */
function phaseRows(): Record<string, TokenRow> {
  return { plan: zeroRow(), execute: zeroRow(), review: zeroRow(), auxiliary: zeroRow() };
}

function addToGroup(g: Group, r: SpendRecord): void {
  addTo(g.row, r);
  addTo((g.by_phase[r.phase] ??= zeroRow()), r);
  g.last = r;
}

/** A turn's sums with its first and last stamps; `seq` is the order it first appeared in. */
interface TurnGroup extends Group {
  readonly seq: number;
  startMs: number;
  endMs: number;
  started: string;
  ended: string;
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
  const seat = matchesSeat(params.agent_role);
  const records: SpendRecord[] = [];
  const totals = zeroRow();
  let through: number | null = null;
  let throughText = '';
  // Spend on no seat's behalf (empty handle) counts in the totals, phases and workers, in no agent's row.
  const agents = new Map<string, Group>();
  // Turns by seat, then by turn id (a turn id is one seat's).
  const turnsBySeat = new Map<string, Map<string, TurnGroup>>();
  const turns: TurnGroup[] = [];
  for (const { record: r } of ledgerEntries(ledger, ledger.now() - params.since_days * 86_400_000)) {
    if (!seat(r)) continue;
    records.push(r);
    addTo(totals, r);
    // Each stamp is read once: the latest one, and the turn's first and last.
    const ms = instantMs(r.timestamp);
    if (ms !== null && (through === null || ms > through)) {
      through = ms;
      throughText = r.timestamp;
    }
    if (r.handle !== '') {
      let agent = agents.get(r.handle);
      if (!agent) agents.set(r.handle, (agent = newGroup(r)));
      addToGroup(agent, r);
    }
    if (r.turn_id === null) continue;
    let seatTurns = turnsBySeat.get(r.handle);
    if (!seatTurns) turnsBySeat.set(r.handle, (seatTurns = new Map<string, TurnGroup>()));
    let turn = seatTurns.get(r.turn_id);
    if (!turn) {
      turn = { row: zeroRow(), by_phase: phaseRows(), last: r, seq: turns.length, startMs: Infinity, endMs: -Infinity, started: '', ended: '' }; // prettier-ignore
      seatTurns.set(r.turn_id, turn);
      turns.push(turn);
    }
    addToGroup(turn, r);
    const at = ms ?? 0;
    if (at < turn.startMs) {
      turn.startMs = at;
      turn.started = r.timestamp;
    }
    if (at > turn.endMs) {
      turn.endMs = at;
      turn.ended = r.timestamp;
    }
  }
  // Newest first: turns appear in about the order they end, so most are compared once and passed over.
  const candidates: Array<{ g: TurnGroup; own: ReturnType<TurnTimes>; endMs: number }> = [];
  for (let i = turns.length - 1; i >= 0; i -= 1) {
    const g = turns[i] as TurnGroup;
    const own = turnTimes?.(g.last.handle, g.last.turn_id as string);
    candidates.push({ g, own, endMs: own?.ended_ms ?? g.endMs });
  }
  // Latest end first, ties by turn id, then by first appearance: only the rows shown are kept in order.
  const recent = firstInOrder(
    candidates,
    params.recent_turns,
    (a, b) =>
      a.endMs > b.endMs ||
      (a.endMs === b.endMs &&
        (a.g.last.turn_id! < b.g.last.turn_id! ||
          (a.g.last.turn_id === b.g.last.turn_id && a.g.seq < b.g.seq))),
  );
  const agentRows = [...agents].map(([handle, g]) => ({
    role: g.last.role,
    handle,
    agent_id: g.last.agent_id,
    ...g.row,
    by_phase: g.by_phase,
  }));
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
    by_agent: agentRows.sort((a, b) => byTotal(a, b) || (a.handle < b.handle ? -1 : 1)),
    by_turn: recent.map(({ g, own }) => ({
      turn_id: g.last.turn_id as string,
      role: g.last.role,
      handle: g.last.handle,
      agent_id: g.last.agent_id,
      started_at: own?.started_at ?? g.started,
      ended_at: own?.ended_at ?? g.ended,
      ...g.row,
      by_phase: g.by_phase,
    })),
    aggregated_through: throughText,
  };
}
