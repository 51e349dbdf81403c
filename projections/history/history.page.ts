/**
 * One keyset page of index entries of one kind, newest first, each read back from the stream by its
 * sequence and shaped by the question; the paging rules of `/events` (exclusive cursor on (timestamp, id),
 * `exhausted` only when no older entry exists, nothing past the history floor). A record the stream no
 * longer holds, or whose payload its shaper refuses, is skipped; the cursor still moves past it.
 */
import { formatInstant, type Coverage, type EventRecord } from '../../schema/index.js';
import type { IndexFilter } from '../events/events.index.js';
import type { EventsSource } from '../events/events.queries.js';
import type { Cursor } from './history.params.js';

export interface HistoryPage<Row> {
  readonly rows: Row[];
  /** True only when no older row exists (then `next` is null). */
  readonly exhausted: boolean;
  readonly next: { readonly before_time: string; readonly before_id: string } | null;
  readonly coverage: Coverage;
}

/** One node answered: this one (every node reads the shared stream). */
export function coverageOf(src: EventsSource): Coverage {
  return { nodes: [{ id: src.node, answered: true }], complete: true };
}

export const floorOf = (src: EventsSource): number => (src.now?.() ?? Date.now()) - src.historySeconds * 1000;

/** Rows deduplicated by id, first kept (a record stored twice under one id is one row). */
export function uniqueById<Row extends { readonly id: string }>(rows: ReadonlyArray<Row | null>): Row[] {
  const seen = new Set<string>();
  const out: Row[] = [];
  for (const row of rows) {
    if (row === null || seen.has(row.id)) continue;
    seen.add(row.id);
    out.push(row);
  }
  return out;
}

export async function historyPage<Row extends { readonly id: string }>(
  src: EventsSource,
  filter: IndexFilter,
  cursor: Cursor | null,
  limit: number,
  shape: (record: EventRecord) => Row | null,
): Promise<HistoryPage<Row>> {
  const index = src.state().index;
  const floor = floorOf(src);
  if (cursor !== null && cursor.instant.ms < floor)
    return { rows: [], exhausted: true, next: null, coverage: coverageOf(src) };
  const end =
    cursor === null ? index.size : index.lowerBound(cursor.instant.ms, cursor.instant.ns, cursor.id);
  const positions = index.scanBack(end, filter, limit + 1, floor);
  const exhausted = positions.length <= limit;
  const taken = positions.slice(0, limit);
  const rows = await Promise.all(
    taken.map(async (i) => {
      const record = await src.fetch(index.seqAt(i));
      return record === null ? null : shape(record);
    }),
  );
  const last = taken[taken.length - 1];
  const next =
    exhausted || last === undefined
      ? null
      : { before_time: formatInstant(index.instantAt(last)), before_id: index.idAt(last) };
  return { rows: uniqueById(rows), exhausted, next, coverage: coverageOf(src) };
}
