/**
 * The sums `/tokens/breakdown` builds, over one stretch of the ledger's placed order. Two stretches side by
 * side merge into the sums of both (`mergeFold`, the earlier one first), so an hour's or a day's sums are
 * kept and a request adds up a few of them instead of every record (see rollup-index.ts).
 */
import type { SpendRecord } from '../../schema/index.js';
import { instantMs } from '../time/instants.js';
import { addRow, addTo, zeroRow, type TokenRow } from './token-rows.js';

/**
 * A seat filter matches the role (display name) exactly, or the handle in any case: handles are lower-case,
 * and people type them as they like (`Ada`, `ada`).
 */
export const matchesSeat = (filter: string | null) => {
  const handle = filter?.toLowerCase() ?? null;
  return (r: Pick<SpendRecord, 'role' | 'handle'>): boolean =>
    filter === null || r.role === filter || r.handle === handle;
};

/** The sums of an agent or a turn, and its last record (in placed order). */
export interface SeatFold {
  readonly row: TokenRow;
  /** By phase, in the order each phase first appeared (the answer's `by_phase` map order). */
  readonly phases: Map<string, TokenRow>;
  last: SpendRecord;
}

export interface Fold {
  readonly totals: TokenRow;
  readonly phases: Map<string, TokenRow>;
  readonly models: Map<string, TokenRow>;
  /** Auxiliary spend by worker. */
  readonly workers: Map<string, TokenRow>;
  /** Seats by handle (spend on no seat's behalf is in no agent's sums). */
  readonly agents: Map<string, SeatFold>;
  /** The latest stamp; of equal ones the first placed. */
  throughMs: number | null;
  throughText: string;
}

export const emptyFold = (): Fold => ({
  totals: zeroRow(),
  phases: new Map(),
  models: new Map(),
  workers: new Map(),
  agents: new Map(),
  throughMs: null,
  throughText: '',
});

export function rowOf(map: Map<string, TokenRow>, key: string): TokenRow {
  let row = map.get(key);
  if (!row) map.set(key, (row = zeroRow()));
  return row;
}

export function foldRecord(f: Fold, r: SpendRecord): void {
  addTo(f.totals, r);
  addTo(rowOf(f.phases, r.phase), r);
  addTo(rowOf(f.models, r.model), r);
  if (r.phase === 'auxiliary') addTo(rowOf(f.workers, r.worker ?? 'unknown'), r);
  const ms = instantMs(r.timestamp);
  if (ms !== null && (f.throughMs === null || ms > f.throughMs)) {
    f.throughMs = ms;
    f.throughText = r.timestamp;
  }
  if (r.handle === '') return;
  let agent = f.agents.get(r.handle);
  if (!agent) f.agents.set(r.handle, (agent = { row: zeroRow(), phases: new Map(), last: r }));
  addTo(agent.row, r);
  addTo(rowOf(agent.phases, r.phase), r);
  agent.last = r;
}

function mergeRows(into: Map<string, TokenRow>, from: ReadonlyMap<string, TokenRow>): void {
  for (const [key, row] of from) addRow(rowOf(into, key), row);
}

/** Adds `later` (the stretch right after the one `into` holds) to `into`; `later` is left as it was. */
export function mergeFold(into: Fold, later: Fold): void {
  addRow(into.totals, later.totals);
  mergeRows(into.phases, later.phases);
  mergeRows(into.models, later.models);
  mergeRows(into.workers, later.workers);
  if (later.throughMs !== null && (into.throughMs === null || later.throughMs > into.throughMs)) {
    into.throughMs = later.throughMs;
    into.throughText = later.throughText;
  }
  for (const [handle, a] of later.agents) {
    let agent = into.agents.get(handle);
    if (!agent) into.agents.set(handle, (agent = { row: zeroRow(), phases: new Map(), last: a.last }));
    addRow(agent.row, a.row);
    mergeRows(agent.phases, a.phases);
    agent.last = a.last;
  }
}

/** A `by_phase` map: the four spec keys always, in the spec's order, then other phases as they appeared. */
export function phaseMap(phases: ReadonlyMap<string, TokenRow>): Record<string, TokenRow> {
  const out: Record<string, TokenRow> = {};
  for (const key of ['plan', 'execute', 'review', 'auxiliary'])
    out[key] = { ...(phases.get(key) ?? zeroRow()) };
  for (const [key, row] of phases) out[key] ??= { ...row };
  return out;
}

/** The rows of a map by `total_tokens` descending, then key. */
export const sortedRows = (map: ReadonlyMap<string, TokenRow>): Array<[string, TokenRow]> =>
  [...map].sort((a, b) => b[1].total_tokens - a[1].total_tokens || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
