/**
 * What the ledger keeps for `/tokens/breakdown` besides its records, so a request does not fold every record
 * of its window again (18 ms at 24,000 records on the node's one thread):
 *  - the sums of each hour and each day of records, per seat filter lately asked, made on first use and
 *    dropped when a record of that hour arrives or leaves. A window (since a moving instant, up to the
 *    newest record) is its first partial hour record by record, then whole hours to midnight, then whole days;
 *  - each turn's records, and the sums of a turn that lies wholly in a window; only a turn the window's edge
 *    cuts is folded again.
 * Everything here is made from the ledger's own records and leaves with them.
 */
import type { SpendRecord } from '../../schema/index.js';
import { instantMs } from '../time/instants.js';
import {
  emptyFold,
  foldRecord,
  matchesSeat,
  mergeFold,
  rowOf,
  type Fold,
  type SeatFold,
} from './rollup-fold.js';
import { addTo, zeroRow } from './token-rows.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Seat filters whose hour and day sums are kept (the least recently asked go first). */
const FILTERS_KEPT = 16;

export interface PlacedEntry {
  readonly record: SpendRecord;
  readonly ms: number;
}

/** A turn's sums over the records of it a window holds, with its first and last stamps. */
export interface TurnFold extends SeatFold {
  readonly turnId: string;
  startMs: number;
  endMs: number;
  started: string;
  ended: string;
  /** Its first record in the window (turns first seen earlier come first among equal ends and ids). */
  readonly first: PlacedEntry;
}

/** One seat's turn: its records in placed order. */
interface TurnRecords {
  readonly handle: string;
  readonly entries: PlacedEntry[];
  /** The role of its records while they all name one (a filter by role then takes all or none). */
  role: string;
  mixed: boolean;
  /** Its sums over all its records, once asked. */
  whole: TurnFold | null;
}

interface FilterSums {
  readonly hours: Map<number, Fold>;
  readonly days: Map<number, Fold>;
}

/** First index from `from` of `list` (ascending by `ms`) whose `ms` is at least `ms`. */
export function lowerBound(list: ReadonlyArray<{ readonly ms: number }>, ms: number, from = 0): number {
  let lo = from;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as { readonly ms: number }).ms < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Whether `a` is placed before `b` in `entries` (by instant, then arrival: a record is placed after those
 * already at its instant). Only turns tied on end and id ask, so a scan of one instant's records is rare.
 */
export function placedBefore(entries: readonly PlacedEntry[], a: PlacedEntry, b: PlacedEntry): boolean {
  if (a.ms !== b.ms) return a.ms < b.ms;
  for (let i = lowerBound(entries, a.ms); i < entries.length; i += 1) {
    const e = entries[i] as PlacedEntry;
    if (e === a) return true;
    if (e === b) return false;
  }
  return false;
}

export class RollupIndex {
  private readonly sums = new Map<string | null, FilterSums>();
  /** Turns by seat, then by turn id (a turn id is one seat's; the ledger shares the id strings). */
  private readonly turns = new Map<string, Map<string, TurnRecords>>();

  /** A record was placed in the ledger (after every record placed at the same instant). */
  added(entry: PlacedEntry): void {
    this.forget(entry.ms);
    const r = entry.record;
    if (r.turn_id === null) return;
    let seat = this.turns.get(r.handle);
    if (!seat) this.turns.set(r.handle, (seat = new Map<string, TurnRecords>()));
    const turn = seat.get(r.turn_id);
    // A list made to its one record: an empty one grows room for 17 (many turns make one call).
    if (!turn) {
      seat.set(r.turn_id, { handle: r.handle, entries: [entry], role: r.role, mixed: false, whole: null });
      return;
    }
    let i = turn.entries.length;
    while (i > 0 && (turn.entries[i - 1] as PlacedEntry).ms > entry.ms) i -= 1;
    turn.entries.splice(i, 0, entry);
    if (r.role !== turn.role) turn.mixed = true;
    turn.whole = null;
  }

  /** A record left the ledger (the oldest go first). */
  removed(entry: PlacedEntry): void {
    this.forget(entry.ms);
    const { handle, turn_id: turnId } = entry.record;
    if (turnId === null) return;
    const seat = this.turns.get(handle);
    const turn = seat?.get(turnId);
    const i = turn?.entries.indexOf(entry) ?? -1;
    if (!seat || !turn || i < 0) return;
    turn.entries.splice(i, 1);
    turn.whole = null;
    if (turn.entries.length > 0) return;
    seat.delete(turnId);
    if (seat.size === 0) this.turns.delete(handle);
  }

  private forget(ms: number): void {
    const hour = Math.floor(ms / HOUR_MS);
    const day = Math.floor(ms / DAY_MS);
    for (const s of this.sums.values()) {
      s.hours.delete(hour);
      s.days.delete(day);
    }
  }

  private sumsFor(filter: string | null): FilterSums {
    let s = this.sums.get(filter);
    if (s) this.sums.delete(filter);
    else s = { hours: new Map(), days: new Map() };
    this.sums.set(filter, s);
    if (this.sums.size > FILTERS_KEPT) this.sums.delete(this.sums.keys().next().value as string | null);
    return s;
  }

  /** The sums of `entries` (the ledger's, ascending by `ms`) placed at `fromMs` or later that match `filter`. */
  fold(entries: readonly PlacedEntry[], fromMs: number, filter: string | null): Fold {
    const seat = matchesSeat(filter);
    const sums = this.sumsFor(filter);
    const acc = emptyFold();
    const firstHour = Math.ceil(fromMs / HOUR_MS) * HOUR_MS;
    const firstDay = Math.ceil(firstHour / DAY_MS) * DAY_MS;
    let i = lowerBound(entries, fromMs);
    for (; i < entries.length && (entries[i] as PlacedEntry).ms < firstHour; i += 1) {
      const r = (entries[i] as PlacedEntry).record;
      if (seat(r)) foldRecord(acc, r);
    }
    // `i` is always the first record of the hour or day taken next.
    while (i < entries.length && (entries[i] as PlacedEntry).ms < firstDay) {
      const hour = Math.floor((entries[i] as PlacedEntry).ms / HOUR_MS);
      mergeFold(acc, this.hourFold(sums, entries, i, hour, seat));
      i = lowerBound(entries, (hour + 1) * HOUR_MS, i);
    }
    while (i < entries.length) {
      const day = Math.floor((entries[i] as PlacedEntry).ms / DAY_MS);
      let f = sums.days.get(day);
      if (!f) {
        f = emptyFold();
        const end = (day + 1) * DAY_MS;
        for (let j = i; j < entries.length && (entries[j] as PlacedEntry).ms < end;) {
          const hour = Math.floor((entries[j] as PlacedEntry).ms / HOUR_MS);
          mergeFold(f, this.hourFold(sums, entries, j, hour, seat));
          j = lowerBound(entries, (hour + 1) * HOUR_MS, j);
        }
        sums.days.set(day, f);
      }
      mergeFold(acc, f);
      i = lowerBound(entries, (day + 1) * DAY_MS, i);
    }
    return acc;
  }

  /** The sums of hour `hour`, whose first record is `entries[from]`. */
  private hourFold(
    sums: FilterSums,
    entries: readonly PlacedEntry[],
    from: number,
    hour: number,
    seat: (r: SpendRecord) => boolean,
  ): Fold {
    let f = sums.hours.get(hour);
    if (f) return f;
    f = emptyFold();
    const end = (hour + 1) * HOUR_MS;
    for (let j = from; j < entries.length && (entries[j] as PlacedEntry).ms < end; j += 1) {
      const r = (entries[j] as PlacedEntry).record;
      if (seat(r)) foldRecord(f, r);
    }
    sums.hours.set(hour, f);
    return f;
  }

  /**
   * The turns with a record placed at `fromMs` or later that matches `filter`, each summed over those
   * records; a seat's in the order its turns were first placed (about the order they end).
   */
  turnFolds(fromMs: number, filter: string | null): TurnFold[] {
    const out: TurnFold[] = [];
    for (const seat of this.turns.values())
      for (const turn of seat.values()) {
        if ((turn.entries[turn.entries.length - 1] as PlacedEntry).ms < fromMs) continue;
        const handle = turn.handle;
        // A filter the handle does not match takes the records of that role: all or none unless the role changed.
        const all =
          filter === null || handle === filter.toLowerCase() || (!turn.mixed && turn.role === filter);
        if (!all && !turn.mixed) continue;
        let g: TurnFold | null;
        if (all && (turn.entries[0] as PlacedEntry).ms >= fromMs) g = turn.whole ??= foldTurn(turn, 0, null);
        else g = foldTurn(turn, lowerBound(turn.entries, fromMs), all ? null : filter);
        if (g) out.push(g);
      }
    return out;
  }
}

/** A turn's sums over its records from `from` on (of role `role` only, when given); null when none. */
function foldTurn(turn: TurnRecords, from: number, role: string | null): TurnFold | null {
  let g: TurnFold | null = null;
  for (let i = from; i < turn.entries.length; i += 1) {
    const r = (turn.entries[i] as PlacedEntry).record;
    if (role !== null && r.role !== role) continue;
    g ??= {
      row: zeroRow(),
      phases: new Map(),
      last: r,
      turnId: r.turn_id as string,
      startMs: Infinity,
      endMs: -Infinity,
      started: '',
      ended: '',
      first: turn.entries[i] as PlacedEntry,
    };
    addTo(g.row, r);
    addTo(rowOf(g.phases, r.phase), r);
    g.last = r;
    const at = instantMs(r.timestamp) ?? 0;
    if (at < g.startMs) {
      g.startMs = at;
      g.started = r.timestamp;
    }
    if (at > g.endMs) {
      g.endMs = at;
      g.ended = r.timestamp;
    }
  }
  return g;
}
