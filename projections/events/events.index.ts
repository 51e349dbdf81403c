/**
 * The events projection's index over the whole retained history, sorted by (instant, id) ascending and kept
 * in columns (`EventColumns`, events.columns.ts): adding in order, finding by id, listing by filter, tracing,
 * ageing out and checkpoints. A row itself is read back from the stream by its sequence. An entry equal to
 * one already held (same instant and id) is a duplicate and is not added.
 */
import { EventColumns } from './events.columns.js';
import {
  CATEGORY,
  categoryCodes,
  FEED,
  KEPT,
  KIND,
  KIND_SHIFT,
  WIDE,
  type IndexEntry,
  type IndexFilter,
  type SavedIndex,
} from './events.entry.js';
import { hashText, SeatCodes, type IdHit } from './events.ids.js';
import { EventKind } from './events.kinds.js';

export {
  categoryCodes,
  flagsOfKind,
  type IndexEntry,
  type IndexFilter,
  type SavedIndex,
} from './events.entry.js';
export type { IdHit } from './events.ids.js';

export class EventIndex extends EventColumns {
  // ---- ordering ----------------------------------------------------------------------------------

  /** Compares entry `i` with a key: negative when the entry sorts first. */
  compareAt(i: number, ms: number, ns: number, id: string): number {
    const a = this.ms[i] as number;
    if (a !== ms) return a - ms;
    const b = this.ns[i] as number;
    if (b !== ns) return b - ns;
    return this.ids.compareString(this.idOff[i] as number, this.idLen[i] as number, this.wide(i), id);
  }

  private compareStaged(i: number, ms: number, ns: number): number {
    const a = this.ms[i] as number;
    if (a !== ms) return a - ms;
    const b = this.ns[i] as number;
    if (b !== ns) return b - ns;
    return this.ids.compareStaged(this.idOff[i] as number, this.idLen[i] as number, this.wide(i));
  }

  /** First position whose entry is not before the key (0..size). */
  lowerBound(ms: number, ns: number, id: string): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareAt(mid, ms, ns, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * `lowerBound` for the staged key, known to sort before the last entry: it gallops back from the end
   * first, since a late entry mostly lands a few places from it (ties on a millisecond, ids in any order).
   */
  private lowerBoundStaged(ms: number, ns: number): number {
    let hi = this.n - 1;
    let step = 1;
    let lo = hi - step;
    while (lo >= 0 && this.compareStaged(lo, ms, ns) > 0) {
      hi = lo;
      step *= 2;
      lo = hi - step;
    }
    if (lo < 0) lo = 0;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareStaged(mid, ms, ns) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // ---- adding ------------------------------------------------------------------------------------

  /** Adds an entry in order; false when an equal entry (same instant and id) is already held. */
  insert(e: IndexEntry): boolean {
    this.ids.stageString(e.id);
    const flags =
      categoryCodes.indexOf(e.category) | (e.feed ? FEED : 0) | ((e.kind ?? EventKind.Other) << KIND_SHIFT);
    const [traceA, traceB] = hashText(e.traceId);
    return this.insertStaged(
      e.instant.ms,
      e.instant.ns,
      e.seq,
      flags,
      this.intern(e.agentId),
      traceA,
      traceB,
      this.types.intern(e.type),
    );
  }

  /**
   * Adds an entry whose id was staged (the replay's path: no object is built). `flags` is the category code
   * (`categoryCodes`), plus 0x80 for a feed type, plus `flagsOfKind`; `agentCode` from `intern`; the trace
   * as its two hash words; `typeCode` from `internTypeAscii`.
   */
  insertStaged(
    ms: number,
    ns: number,
    seq: number,
    flags: number,
    agentCode: number,
    traceA: number,
    traceB: number,
    typeCode: number,
  ): boolean {
    let at = this.n;
    if (this.n > 0) {
      const last = this.compareStaged(this.n - 1, ms, ns);
      if (last === 0) return false;
      if (last > 0) {
        at = this.lowerBoundStaged(ms, ns);
        if (at < this.n && this.compareStaged(at, ms, ns) === 0) return false;
      }
    }
    if (this.n === this.ms.length) this.resize(2 * this.n);
    if (at < this.n) this.openAt(at);
    const ids = this.ids;
    const wide = ids.stagedIsWide;
    this.idLen[at] = ids.stagedLength;
    this.idOff[at] = ids.commit();
    this.ms[at] = ms;
    this.ns[at] = ns;
    this.seqs[at] = seq;
    this.flags[at] = (flags & KEPT) | (wide ? WIDE : 0);
    this.agent[at] = agentCode;
    this.type[at] = typeCode;
    this.traceA[at] = traceA;
    this.traceB[at] = traceB;
    this.n += 1;
    this.idTable.add(ids.stagedA, ids.stagedB, seq, ms);
    return true;
  }

  // ---- finding -----------------------------------------------------------------------------------

  /**
   * Where entries with this id are (by its 64-bit hash: check the record read back), newest first; empty
   * when none is held. One probe run of the id table, no scan.
   */
  findId(id: string): IdHit[] {
    const [a, b] = hashText(id);
    return this.idTable.find(a, b);
  }

  // ---- listing ---------------------------------------------------------------------------------

  /** True when entry `i` passes the filter (an unknown seat or type matches nothing). */
  matches(i: number, f: IndexFilter, agentCode: number | null, typeCode: number | null = null): boolean {
    const flags = this.flags[i] as number;
    if (f.feedOnly && (flags & FEED) === 0) return false;
    if (f.category !== undefined && categoryCodes[flags & CATEGORY] !== f.category) return false;
    if (f.kind !== undefined && (flags & KIND) >>> KIND_SHIFT !== f.kind) return false;
    if (agentCode !== null && this.agent[i] !== agentCode) return false;
    if (typeCode !== null && this.type[i] !== typeCode) return false;
    return true;
  }

  /** Positions of the newest entries before `end` (exclusive) passing the filter, newest first. */
  scanBack(end: number, filter: IndexFilter, limit: number, floorMs: number): number[] {
    const code = this.agentCode(filter.agentId);
    const typeCode = filter.type === undefined ? null : (this.types.codeOf(filter.type) ?? -1);
    const out: number[] = [];
    if (code === -1 || typeCode === -1) return out;
    for (let i = end - 1; i >= 0 && out.length < limit; i -= 1) {
      if ((this.ms[i] as number) < floorMs) break;
      if (this.matches(i, filter, code, typeCode) && this.newestOfId(i)) out.push(i);
    }
    return out;
  }

  /** Positions of the trace's entries (by hash: check the records read back), oldest first. */
  trace(traceId: string): number[] {
    const [a, b] = hashText(traceId);
    const out: number[] = [];
    for (let i = 0; i < this.n; i += 1)
      if (this.traceA[i] === a && this.traceB[i] === b && this.newestOfId(i)) out.push(i);
    return out;
  }

  /**
   * False when the index holds entry `i`'s id again at a newer instant (a record stored twice, restamped):
   * listings and traces show an id once, at its newest instant, as `/events/{id}` answers it.
   */
  newestOfId(i: number): boolean {
    const off = this.idOff[i] as number;
    const len = this.idLen[i] as number;
    const wide = this.wide(i);
    const hits = this.idTable.find(this.ids.hash(off, len, wide, 0), this.ids.hash(off, len, wide, 1));
    if (hits.length < 2) return true;
    const ms = this.ms[i] as number;
    for (const hit of hits) {
      if (hit.ms < ms) break; // newest first: the rest are older
      if (hit.seq === this.seqs[i]) continue;
      const j = this.positionOf(hit.seq, hit.ms);
      // The table finds by hash: only the same id shadows.
      if (j > i && this.idAt(j) === this.idAt(i)) return false;
    }
    return true;
  }

  /** The position of the entry stored at `seq` whose instant is in millisecond `ms`, or -1. */
  private positionOf(seq: number, ms: number): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.ms[mid] as number) < ms) lo = mid + 1;
      else hi = mid;
    }
    for (let j = lo; j < this.n && this.ms[j] === ms; j += 1) if (this.seqs[j] === seq) return j;
    return -1;
  }

  // ---- ageing and checkpoints --------------------------------------------------------------------

  /** Forgets every entry older than `floorMs` (they can no longer be listed); compacts the arena and table. */
  dropBefore(floorMs: number): number {
    let k = 0;
    while (k < this.n && (this.ms[k] as number) < floorMs) k += 1;
    if (k === 0) return 0;
    for (const col of this.columns()) col.copyWithin(0, k, this.n);
    this.n -= k;
    this.ids.compact(this.n, this.idOff, (i) => this.idBytes(i));
    this.rebuildIdTable();
    return k;
  }

  save(): SavedIndex {
    const take = <T extends Float64Array | Uint32Array | Uint16Array | Uint8Array>(a: T): number[] =>
      Array.from(a.subarray(0, this.n));
    return {
      ms: take(this.ms),
      ns: take(this.ns),
      seq: take(this.seqs),
      flags: Array.from(this.flags.subarray(0, this.n), (f) => f & KEPT),
      agent: take(this.agent),
      type: take(this.type),
      ids: Array.from({ length: this.n }, (_, i) => this.idAt(i)),
      traceA: take(this.traceA),
      traceB: take(this.traceB),
      agents: this.seats.save(),
      types: this.types.save(),
    };
  }

  static load(saved: SavedIndex): EventIndex {
    const index = new EventIndex();
    const n = saved.ids.length;
    index.reserve(n);
    index.ms.set(saved.ms);
    index.ns.set(saved.ns);
    index.seqs.set(saved.seq);
    index.agent.set(saved.agent);
    index.type.set(saved.type);
    index.traceA.set(saved.traceA);
    index.traceB.set(saved.traceB);
    const ids = index.ids;
    for (let i = 0; i < n; i += 1) {
      ids.stageString(saved.ids[i] as string);
      index.idLen[i] = ids.stagedLength;
      index.flags[i] = ((saved.flags[i] ?? 0) & KEPT) | (ids.stagedIsWide ? WIDE : 0);
      index.idOff[i] = ids.commit();
    }
    index.seats = SeatCodes.load(saved.agents);
    index.types = SeatCodes.load(saved.types);
    index.n = n;
    index.rebuildIdTable();
    return index;
  }
}
