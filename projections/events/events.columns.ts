/**
 * The storage of the events index (events.index.ts): one typed array per field, grown together, entry `i` at
 * position `i` of each, so a million entries put no object or string in front of the collector:
 *  - ids live in an `IdArena` and are found by an `IdTable` (events.ids.ts); the table is rebuilt (and
 *    shrunk) when entries age out, so it stays about twice the live entry count;
 *  - trace ids are kept as a 64-bit hash (two FNV-1a words); a trace answer checks the records it reads back;
 *  - seats and event types are interned to small codes.
 */
import type { Instant } from '../../schema/index.js';
import { CATEGORY, WIDE } from './events.entry.js';
import { IdArena, IdTable, SeatCodes } from './events.ids.js';

/** Fields are protected, not private: `EventIndex` extends this class so its loops read the columns directly. */
export class EventColumns {
  protected ms = new Float64Array(1024);
  protected ns = new Uint32Array(1024);
  protected seqs = new Float64Array(1024);
  protected flags = new Uint8Array(1024);
  protected agent = new Uint32Array(1024);
  protected type = new Uint16Array(1024);
  protected traceA = new Uint32Array(1024);
  protected traceB = new Uint32Array(1024);
  protected idOff = new Float64Array(1024);
  protected idLen = new Uint32Array(1024);
  protected readonly ids = new IdArena();
  protected idTable = new IdTable();
  protected seats = new SeatCodes();
  /** Event types interned like seats (the catalogue's types are few: a listing filters on the code). */
  protected types = new SeatCodes();
  protected n = 0;

  get size(): number {
    return this.n;
  }

  /** Memory held for ids: arena bytes and id-table slots (both shrink when entries age out). */
  get idFootprint(): { arenaBytes: number; tableSlots: number } {
    return { arenaBytes: this.ids.capacity, tableSlots: this.idTable.slots };
  }

  /**
   * Makes room for `more` entries (ids of `idBytes` bytes each, as a guess) so that adding them moves no
   * column and rehashes no table on the way: what a replay does before folding a known number of records.
   */
  reserve(more: number, idBytes = 36): void {
    let cap = this.ms.length;
    while (cap < this.n + more) cap *= 2;
    this.resize(cap);
    this.ids.reserve(more * idBytes);
    this.idTable.reserve(this.n + more);
  }

  protected resize(cap: number): void {
    if (cap <= this.ms.length) return;
    const widen = <T extends Float64Array | Uint32Array | Uint16Array | Uint8Array>(
      a: T,
      make: (n: number) => T,
    ): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.ms = widen(this.ms, (c) => new Float64Array(c));
    this.ns = widen(this.ns, (c) => new Uint32Array(c));
    this.seqs = widen(this.seqs, (c) => new Float64Array(c));
    this.flags = widen(this.flags, (c) => new Uint8Array(c));
    this.agent = widen(this.agent, (c) => new Uint32Array(c));
    this.type = widen(this.type, (c) => new Uint16Array(c));
    this.traceA = widen(this.traceA, (c) => new Uint32Array(c));
    this.traceB = widen(this.traceB, (c) => new Uint32Array(c));
    this.idOff = widen(this.idOff, (c) => new Float64Array(c));
    this.idLen = widen(this.idLen, (c) => new Uint32Array(c));
  }

  protected columns(): Array<Float64Array | Uint32Array | Uint16Array | Uint8Array> {
    return [
      this.ms,
      this.ns,
      this.seqs,
      this.flags,
      this.agent,
      this.type,
      this.traceA,
      this.traceB,
      this.idOff,
      this.idLen,
    ];
  }

  protected wide(i: number): boolean {
    return ((this.flags[i] as number) & WIDE) !== 0;
  }

  /** Bytes entry `i`'s id takes in the arena. */
  protected idBytes(i: number): number {
    return this.wide(i) ? 2 * (this.idLen[i] as number) : (this.idLen[i] as number);
  }

  // ---- staging an id (the replay's path stages from the record's bytes, with no string made) -------

  /** Stages an id given as ASCII bytes (the caller checked every byte is below 0x80). */
  stageAscii(bytes: Uint8Array, start: number, end: number): void {
    this.ids.stageAscii(bytes, start, end);
  }

  // ---- moving and interning ----------------------------------------------------------------------

  /** Moves entries at..n-1 one place up. Most out-of-order entries land a few places from the end. */
  protected openAt(at: number): void {
    if (this.n - at > 16) {
      for (const col of this.columns()) col.copyWithin(at + 1, at, this.n);
      return;
    }
    const { ms, ns, seqs, flags, agent, type, traceA, traceB, idOff, idLen } = this;
    for (let j = this.n; j > at; j -= 1) {
      ms[j] = ms[j - 1] as number;
      ns[j] = ns[j - 1] as number;
      seqs[j] = seqs[j - 1] as number;
      flags[j] = flags[j - 1] as number;
      agent[j] = agent[j - 1] as number;
      type[j] = type[j - 1] as number;
      traceA[j] = traceA[j - 1] as number;
      traceB[j] = traceB[j - 1] as number;
      idOff[j] = idOff[j - 1] as number;
      idLen[j] = idLen[j - 1] as number;
    }
  }

  /** The seat's interned code (0 for none), interning it when new. */
  intern(agentId: string | undefined): number {
    return this.seats.intern(agentId);
  }

  /** `intern` for a seat handle given as ASCII bytes, without making its string once it is known. */
  internAscii(bytes: Uint8Array, start: number, end: number): number {
    return this.seats.internAscii(bytes, start, end);
  }

  /** The event type's interned code, given as ASCII bytes (the replay's path). */
  internTypeAscii(bytes: Uint8Array, start: number, end: number): number {
    return this.types.internAscii(bytes, start, end);
  }

  /** The filter's seat as its interned code: null for no seat filter, -1 for a seat never seen. */
  agentCode(agentId: string | undefined): number | null {
    if (agentId === undefined) return null;
    return this.seats.codeOf(agentId) ?? -1;
  }

  // ---- the id table ----------------------------------------------------------------------------

  /** Rebuilds the id table from the entries (after some aged out): two to eight slots a live entry. */
  protected rebuildIdTable(): void {
    this.idTable.clear(this.n);
    for (let i = 0; i < this.n; i += 1) {
      const off = this.idOff[i] as number;
      const len = this.idLen[i] as number;
      const wide = this.wide(i);
      this.idTable.add(
        this.ids.hash(off, len, wide, 0),
        this.ids.hash(off, len, wide, 1),
        this.seqs[i] as number,
        this.ms[i] as number,
      );
    }
  }

  // ---- reading -----------------------------------------------------------------------------------

  seqAt(i: number): number {
    return this.seqs[i] as number;
  }

  idAt(i: number): string {
    return this.ids.decode(this.idOff[i] as number, this.idLen[i] as number, this.wide(i));
  }

  instantAt(i: number): Instant {
    return { ms: this.ms[i] as number, ns: this.ns[i] as number };
  }

  msAt(i: number): number {
    return this.ms[i] as number;
  }

  /** Entry `i`'s category as its code (an index into `categoryCodes`). */
  categoryCodeAt(i: number): number {
    return (this.flags[i] as number) & CATEGORY;
  }
}
