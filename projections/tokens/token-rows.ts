/** Token counters shared by the rollup, the series, the live window and the budget meters. */
import type { SpendRecord } from '../../schema/index.js';

export interface TokenRow {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  calls: number;
  /**
   * Of `total_tokens`, those of records whose counts are estimated (`estimated: true`: the provider's
   * stream was cut before it reported them, ops/providers.md "Usage"); 0 when none.
   */
  estimated_tokens: number;
}

export interface TokenRowFull extends TokenRow {
  cache_read_tokens: number;
  cache_write_tokens: number;
}

export const zeroRow = (): TokenRow => ({
  input_tokens: 0,
  output_tokens: 0,
  total_tokens: 0,
  calls: 0,
  estimated_tokens: 0,
});

/** The part of a record's `total_tokens` that is estimated: all of it or none. */
export const estimatedOf = (r: Pick<SpendRecord, 'total_tokens' | 'estimated'>): number =>
  r.estimated === true ? r.total_tokens : 0;
export const zeroFull = (): TokenRowFull => ({ ...zeroRow(), cache_read_tokens: 0, cache_write_tokens: 0 });

export function addTo(row: TokenRow, r: SpendRecord): void {
  row.input_tokens += r.input_tokens;
  row.output_tokens += r.output_tokens;
  row.total_tokens += r.total_tokens;
  row.calls += 1;
  row.estimated_tokens += estimatedOf(r);
}

/** Adds a row of sums (an older quarter hour's, or one record's as one call). */
export function addRow(row: TokenRow, other: TokenRow): void {
  row.input_tokens += other.input_tokens;
  row.output_tokens += other.output_tokens;
  row.total_tokens += other.total_tokens;
  row.calls += other.calls;
  row.estimated_tokens += other.estimated_tokens;
}

export function addFull(row: TokenRowFull, r: SpendRecord): void {
  addTo(row, r);
  row.cache_read_tokens += r.cache_read_tokens;
  row.cache_write_tokens += r.cache_write_tokens;
}

/** Groups records by a key into rows carrying `extra(key)`; sorted by `total_tokens` descending, then key. */
export function groupRows<E extends object>(
  records: Iterable<SpendRecord>,
  keyOf: (r: SpendRecord) => string | null,
  extra: (r: SpendRecord, key: string) => E,
): Array<E & TokenRow> {
  const rows = new Map<string, E & TokenRow>();
  for (const r of records) {
    const key = keyOf(r);
    if (key === null) continue;
    let row = rows.get(key);
    if (!row) {
      row = { ...extra(r, key), ...zeroRow() };
      rows.set(key, row);
    }
    addTo(row, r);
  }
  return [...rows.entries()]
    .sort((a, b) => b[1].total_tokens - a[1].total_tokens || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, row]) => row);
}

/** The `by_phase` and `by_model` lists that the live window and `/tokens/breakdown` both answer. */
export function byPhaseAndModel(records: readonly SpendRecord[]): {
  by_phase: Array<{ phase: string } & TokenRow>;
  by_model: Array<{ model: string } & TokenRow>;
} {
  return {
    by_phase: groupRows(
      records,
      (r) => r.phase,
      (r) => ({ phase: r.phase }),
    ),
    by_model: groupRows(
      records,
      (r) => r.model,
      (r) => ({ model: r.model }),
    ),
  };
}
