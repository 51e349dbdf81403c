/**
 * The events projection's index over the whole retained history, kept in columns (typed arrays) sorted by
 * (instant, id) ascending, so a million entries put no object or string in front of the collector:
 *  - ids live in one byte arena (one byte a code unit, two for an id with a code unit above 0xFF), compared
 *    code unit by code unit exactly as JavaScript compares strings;
 *  - trace ids are kept as a 64-bit hash (two FNV-1a words); a trace answer checks the records it reads back;
 *  - an open-addressing table maps an id's 64-bit hash to (sequence, instant) for `/events/{id}` without a
 *    scan; it is rebuilt (and shrunk) when entries age out, so it stays about twice the live entry count.
 * A row itself is read back from the stream by its sequence. An entry equal to one already held (same instant
 * and id) is a duplicate and is not added.
 */
import { EventCategory, type Instant } from '../schema/index.js';

export const categoryCodes = Object.values(EventCategory);
const FEED = 0x80;
/** Flag bit: the entry's id is stored two bytes a code unit. */
const WIDE = 0x40;
const CATEGORY = 0x3f;
const BASIS_A = 0x811c9dc5;
const BASIS_B = 0x01000193;

export interface IndexEntry {
  readonly instant: Instant;
  readonly id: string;
  readonly seq: number;
  readonly category: EventCategory;
  readonly feed: boolean;
  readonly agentId: string | undefined;
  readonly traceId: string;
}

/** What a listing filters on. */
export interface IndexFilter {
  readonly category?: EventCategory;
  readonly agentId?: string;
  readonly feedOnly?: boolean;
}

/** Where an id was found: its stream sequence and instant (milliseconds). */
export interface IdHit {
  readonly seq: number;
  readonly ms: number;
}

export interface SavedIndex {
  readonly ms: number[];
  readonly ns: number[];
  readonly seq: number[];
  readonly flags: number[];
  readonly agent: number[];
  readonly ids: string[];
  readonly traceA: number[];
  readonly traceB: number[];
  readonly agents: string[];
}

/** FNV-1a over UTF-16 code units, from a given offset basis (two bases give two independent words). */
export function fnv(text: string, basis: number): number {
  let h = basis >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

const wideDecoder = new TextDecoder('utf-16le');
const narrowDecoder = new TextDecoder('latin1');

export class EventIndex {
  private ms = new Float64Array(1024);
  private ns = new Uint32Array(1024);
  private seqs = new Float64Array(1024);
  private flags = new Uint8Array(1024);
  private agent = new Uint32Array(1024);
  private traceA = new Uint32Array(1024);
  private traceB = new Uint32Array(1024);
  private idOff = new Float64Array(1024);
  private idLen = new Uint32Array(1024);
  /** The id arena; ids are appended (a staged id sits past `used` until its entry is committed). */
  private arena = new Uint8Array(1 << 16);
  private used = 0;
  /**
   * Id table, 24 bytes a slot in one buffer (one cache line to touch): hash words at u32[6s], u32[6s+1];
   * sequence + 1 (0 = empty) at f64[3s+1]; instant ms at f64[3s+2].
   */
  private slotCap = 2048;
  private slotWords = new Uint32Array(0);
  private slotNums = new Float64Array(0);
  private slots = 0;
  /** Interned seat handles; 0 means none. */
  private agents: string[] = [''];
  private agentCodes = new Map<string, number>();
  /** Seat codes by the FNV hash of the handle's bytes (the replay's path). */
  private agentByHash = new Map<number, number>();
  private n = 0;
  /** The staged id (see `stageAscii` / `stageString`). */
  private stagedLen = 0;
  private stagedWide = false;
  private stagedA = 0;
  private stagedB = 0;

  constructor() {
    this.allocSlots(2048);
  }

  get size(): number {
    return this.n;
  }

  /** Memory held for ids: arena bytes and id-table slots (both shrink when entries age out). */
  get idFootprint(): { arenaBytes: number; tableSlots: number } {
    return { arenaBytes: this.arena.length, tableSlots: this.slotCap };
  }

  private grow(): void {
    const cap = this.ms.length * 2;
    const widen = <T extends Float64Array | Uint32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.ms = widen(this.ms, (c) => new Float64Array(c));
    this.ns = widen(this.ns, (c) => new Uint32Array(c));
    this.seqs = widen(this.seqs, (c) => new Float64Array(c));
    this.flags = widen(this.flags, (c) => new Uint8Array(c));
    this.agent = widen(this.agent, (c) => new Uint32Array(c));
    this.traceA = widen(this.traceA, (c) => new Uint32Array(c));
    this.traceB = widen(this.traceB, (c) => new Uint32Array(c));
    this.idOff = widen(this.idOff, (c) => new Float64Array(c));
    this.idLen = widen(this.idLen, (c) => new Uint32Array(c));
  }

  private columns(): Array<Float64Array | Uint32Array | Uint8Array> {
    return [
      this.ms,
      this.ns,
      this.seqs,
      this.flags,
      this.agent,
      this.traceA,
      this.traceB,
      this.idOff,
      this.idLen,
    ];
  }

  // ---- the id arena ------------------------------------------------------------------------------

  private reserve(bytes: number): void {
    if (this.used + bytes <= this.arena.length) return;
    let cap = this.arena.length * 2;
    while (cap < this.used + bytes) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.arena.subarray(0, this.used));
    this.arena = next;
  }

  /** Stages an id given as ASCII bytes (the caller checked every byte is below 0x80), hashing it on the way. */
  stageAscii(bytes: Uint8Array, start: number, end: number): void {
    const len = end - start;
    this.reserve(len);
    const a = this.arena;
    const at = this.used - start;
    let ha = BASIS_A;
    let hb = BASIS_B;
    for (let i = start; i < end; i += 1) {
      const c = bytes[i] as number;
      a[at + i] = c;
      ha = Math.imul(ha ^ c, 0x01000193) >>> 0;
      hb = Math.imul(hb ^ c, 0x01000193) >>> 0;
    }
    this.stagedLen = len;
    this.stagedWide = false;
    this.stagedA = ha;
    this.stagedB = hb;
  }

  /** Stages an id given as a string. */
  stageString(id: string): void {
    let wide = false;
    for (let i = 0; i < id.length; i += 1) if (id.charCodeAt(i) > 0xff) wide = true;
    const len = id.length;
    this.reserve(wide ? 2 * len : len);
    const a = this.arena;
    const at = this.used;
    if (wide)
      for (let i = 0; i < len; i += 1) {
        const c = id.charCodeAt(i);
        a[at + 2 * i] = c & 0xff;
        a[at + 2 * i + 1] = c >>> 8;
      }
    else for (let i = 0; i < len; i += 1) a[at + i] = id.charCodeAt(i);
    this.stagedLen = len;
    this.stagedWide = wide;
    this.stagedA = fnv(id, BASIS_A);
    this.stagedB = fnv(id, BASIS_B);
  }

  private unit(off: number, wide: boolean, k: number): number {
    const a = this.arena;
    return wide ? (a[off + 2 * k] as number) | ((a[off + 2 * k + 1] as number) << 8) : (a[off + k] as number);
  }

  /** Compares entry `i`'s id with the staged one, as strings compare. */
  private compareStagedId(i: number): number {
    const off = this.idOff[i] as number;
    const len = this.idLen[i] as number;
    const wide = ((this.flags[i] as number) & WIDE) !== 0;
    const sOff = this.used;
    const sLen = this.stagedLen;
    const sWide = this.stagedWide;
    const common = len < sLen ? len : sLen;
    if (!wide && !sWide) {
      const a = this.arena;
      for (let k = 0; k < common; k += 1) {
        const d = (a[off + k] as number) - (a[sOff + k] as number);
        if (d !== 0) return d;
      }
    } else {
      for (let k = 0; k < common; k += 1) {
        const d = this.unit(off, wide, k) - this.unit(sOff, sWide, k);
        if (d !== 0) return d;
      }
    }
    return len - sLen;
  }

  /** Compares entry `i`'s id with a string, as strings compare. */
  private compareId(i: number, id: string): number {
    const off = this.idOff[i] as number;
    const len = this.idLen[i] as number;
    const wide = ((this.flags[i] as number) & WIDE) !== 0;
    const common = len < id.length ? len : id.length;
    for (let k = 0; k < common; k += 1) {
      const d = this.unit(off, wide, k) - id.charCodeAt(k);
      if (d !== 0) return d;
    }
    return len - id.length;
  }

  /** Word `which` of an arena id's 64-bit hash (the same as `fnv` on its string). */
  private hashId(off: number, len: number, wide: boolean, which: 0 | 1): number {
    let h = which === 0 ? BASIS_A : BASIS_B;
    if (!wide) {
      const a = this.arena;
      for (let k = off; k < off + len; k += 1) h = Math.imul(h ^ (a[k] as number), 0x01000193) >>> 0;
      return h;
    }
    for (let k = 0; k < len; k += 1) h = Math.imul(h ^ this.unit(off, wide, k), 0x01000193) >>> 0;
    return h;
  }

  // ---- ordering ----------------------------------------------------------------------------------

  /** Compares entry `i` with a key: negative when the entry sorts first. */
  compareAt(i: number, ms: number, ns: number, id: string): number {
    const a = this.ms[i] as number;
    if (a !== ms) return a - ms;
    const b = this.ns[i] as number;
    if (b !== ns) return b - ns;
    return this.compareId(i, id);
  }

  private compareStaged(i: number, ms: number, ns: number): number {
    const a = this.ms[i] as number;
    if (a !== ms) return a - ms;
    const b = this.ns[i] as number;
    if (b !== ns) return b - ns;
    return this.compareStagedId(i);
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

  private lowerBoundStaged(ms: number, ns: number): number {
    let lo = 0;
    let hi = this.n;
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
    this.stageString(e.id);
    const flags = categoryCodes.indexOf(e.category) | (e.feed ? FEED : 0);
    return this.insertStaged(
      e.instant.ms,
      e.instant.ns,
      e.seq,
      flags,
      this.intern(e.agentId),
      fnv(e.traceId, BASIS_A),
      fnv(e.traceId, BASIS_B),
    );
  }

  /**
   * Adds an entry whose id was staged (the replay's path: no object is built). `flags` is the category code
   * (`categoryCodes`) plus 0x80 for a feed type; `agentCode` from `intern`; the trace as its two hash words.
   */
  insertStaged(
    ms: number,
    ns: number,
    seq: number,
    flags: number,
    agentCode: number,
    traceA: number,
    traceB: number,
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
    if (this.n === this.ms.length) this.grow();
    if (at < this.n) this.openAt(at);
    const off = this.used;
    const wide = this.stagedWide;
    const len = this.stagedLen;
    this.used += wide ? 2 * len : len;
    this.idOff[at] = off;
    this.idLen[at] = len;
    this.ms[at] = ms;
    this.ns[at] = ns;
    this.seqs[at] = seq;
    this.flags[at] = (flags & (FEED | CATEGORY)) | (wide ? WIDE : 0);
    this.agent[at] = agentCode;
    this.traceA[at] = traceA;
    this.traceB[at] = traceB;
    this.n += 1;
    this.addSlot(this.stagedA, this.stagedB, seq, ms);
    return true;
  }

  /** Moves entries at..n-1 one place up. Most out-of-order entries land a few places from the end. */
  private openAt(at: number): void {
    if (this.n - at > 16) {
      for (const col of this.columns()) col.copyWithin(at + 1, at, this.n);
      return;
    }
    const { ms, ns, seqs, flags, agent, traceA, traceB, idOff, idLen } = this;
    for (let j = this.n; j > at; j -= 1) {
      ms[j] = ms[j - 1] as number;
      ns[j] = ns[j - 1] as number;
      seqs[j] = seqs[j - 1] as number;
      flags[j] = flags[j - 1] as number;
      agent[j] = agent[j - 1] as number;
      traceA[j] = traceA[j - 1] as number;
      traceB[j] = traceB[j - 1] as number;
      idOff[j] = idOff[j - 1] as number;
      idLen[j] = idLen[j - 1] as number;
    }
  }

  /** The seat's interned code (0 for none), interning it when new. */
  intern(agentId: string | undefined): number {
    if (agentId === undefined || agentId === '') return 0;
    let code = this.agentCodes.get(agentId);
    if (code === undefined) {
      code = this.agents.length;
      this.agents.push(agentId);
      this.agentCodes.set(agentId, code);
    }
    return code;
  }

  /** `intern` for a seat handle given as ASCII bytes, without making its string once it is known. */
  internAscii(bytes: Uint8Array, start: number, end: number): number {
    if (end === start) return 0;
    let h = BASIS_A;
    for (let i = start; i < end; i += 1) h = Math.imul(h ^ (bytes[i] as number), 0x01000193) >>> 0;
    const code = this.agentByHash.get(h);
    if (code !== undefined) {
      const known = this.agents[code] as string;
      let same = known.length === end - start;
      for (let i = 0; same && i < known.length; i += 1) same = known.charCodeAt(i) === bytes[start + i];
      if (same) return code;
    }
    const fresh = this.intern(
      Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1'),
    );
    if (code === undefined) this.agentByHash.set(h, fresh);
    return fresh;
  }

  // ---- the id table ------------------------------------------------------------------------------

  private allocSlots(cap: number): void {
    const buffer = new ArrayBuffer(cap * 24);
    this.slotCap = cap;
    this.slotWords = new Uint32Array(buffer);
    this.slotNums = new Float64Array(buffer);
    this.slots = 0;
  }

  private addSlot(a: number, b: number, seq: number, ms: number): void {
    if ((this.slots + 1) * 2 > this.slotCap) this.resizeSlots(this.slotCap * 4);
    const mask = this.slotCap - 1;
    const nums = this.slotNums;
    let s = (a ^ Math.imul(b, 0x9e3779b1)) & mask;
    while (nums[3 * s + 1] !== 0) s = (s + 1) & mask;
    this.slotWords[6 * s] = a;
    this.slotWords[6 * s + 1] = b;
    nums[3 * s + 1] = seq + 1;
    nums[3 * s + 2] = ms;
    this.slots += 1;
  }

  private resizeSlots(cap: number): void {
    const words = this.slotWords;
    const nums = this.slotNums;
    const old = this.slotCap;
    this.allocSlots(cap);
    for (let s = 0; s < old; s += 1) {
      const seq = nums[3 * s + 1] as number;
      if (seq !== 0)
        this.addSlot(words[6 * s] as number, words[6 * s + 1] as number, seq - 1, nums[3 * s + 2] as number);
    }
  }

  /** Rebuilds the id table from the entries (after some aged out): two to eight slots a live entry. */
  private rebuildSlots(): void {
    let cap = 2048;
    while (cap < this.n * 2) cap *= 2;
    this.allocSlots(cap);
    for (let i = 0; i < this.n; i += 1) {
      const off = this.idOff[i] as number;
      const len = this.idLen[i] as number;
      const wide = ((this.flags[i] as number) & WIDE) !== 0;
      this.addSlot(
        this.hashId(off, len, wide, 0),
        this.hashId(off, len, wide, 1),
        this.seqs[i] as number,
        this.ms[i] as number,
      );
    }
  }

  /**
   * Where entries with this id are (by its 64-bit hash: check the record read back), newest first; empty
   * when none is held. One probe run of the table, no scan.
   */
  findId(id: string): IdHit[] {
    const a = fnv(id, BASIS_A);
    const b = fnv(id, BASIS_B);
    const mask = this.slotCap - 1;
    const nums = this.slotNums;
    const out: IdHit[] = [];
    if (this.slots === 0) return out;
    for (let s = (a ^ Math.imul(b, 0x9e3779b1)) & mask; nums[3 * s + 1] !== 0; s = (s + 1) & mask)
      if (this.slotWords[6 * s] === a && this.slotWords[6 * s + 1] === b)
        out.push({ seq: (nums[3 * s + 1] as number) - 1, ms: nums[3 * s + 2] as number });
    return out.sort((x, y) => y.ms - x.ms || y.seq - x.seq);
  }

  // ---- reading -----------------------------------------------------------------------------------

  seqAt(i: number): number {
    return this.seqs[i] as number;
  }

  idAt(i: number): string {
    const off = this.idOff[i] as number;
    const len = this.idLen[i] as number;
    return ((this.flags[i] as number) & WIDE) !== 0
      ? wideDecoder.decode(this.arena.subarray(off, off + 2 * len))
      : narrowDecoder.decode(this.arena.subarray(off, off + len));
  }

  instantAt(i: number): Instant {
    return { ms: this.ms[i] as number, ns: this.ns[i] as number };
  }

  /** True when entry `i` passes the filter (an unknown seat matches nothing). */
  matches(i: number, f: IndexFilter, agentCode: number | null): boolean {
    const flags = this.flags[i] as number;
    if (f.feedOnly && (flags & FEED) === 0) return false;
    if (f.category !== undefined && categoryCodes[flags & CATEGORY] !== f.category) return false;
    if (agentCode !== null && this.agent[i] !== agentCode) return false;
    return true;
  }

  /** The filter's seat as its interned code: null for no seat filter, -1 for a seat never seen. */
  agentCode(agentId: string | undefined): number | null {
    if (agentId === undefined) return null;
    return this.agentCodes.get(agentId) ?? -1;
  }

  /** Positions of the newest entries before `end` (exclusive) passing the filter, newest first. */
  scanBack(end: number, filter: IndexFilter, limit: number, floorMs: number): number[] {
    const code = this.agentCode(filter.agentId);
    const out: number[] = [];
    if (code === -1) return out;
    for (let i = end - 1; i >= 0 && out.length < limit; i -= 1) {
      if ((this.ms[i] as number) < floorMs) break;
      if (this.matches(i, filter, code)) out.push(i);
    }
    return out;
  }

  /** Positions of the trace's entries (by hash: check the records read back), oldest first. */
  trace(traceId: string): number[] {
    const a = fnv(traceId, BASIS_A);
    const b = fnv(traceId, BASIS_B);
    const out: number[] = [];
    for (let i = 0; i < this.n; i += 1) if (this.traceA[i] === a && this.traceB[i] === b) out.push(i);
    return out;
  }

  /** The 64-bit hash of a text given as ASCII bytes, as `fnv` gives its string, into `words`. */
  static hashAscii(bytes: Uint8Array, start: number, end: number, words: Uint32Array): void {
    let ha = BASIS_A;
    let hb = BASIS_B;
    for (let i = start; i < end; i += 1) {
      const c = bytes[i] as number;
      ha = Math.imul(ha ^ c, 0x01000193) >>> 0;
      hb = Math.imul(hb ^ c, 0x01000193) >>> 0;
    }
    words[0] = ha;
    words[1] = hb;
  }

  // ---- ageing and checkpoints --------------------------------------------------------------------

  /** Forgets every entry older than `floorMs` (they can no longer be listed); compacts the arena and table. */
  dropBefore(floorMs: number): number {
    let k = 0;
    while (k < this.n && (this.ms[k] as number) < floorMs) k += 1;
    if (k === 0) return 0;
    for (const col of this.columns()) col.copyWithin(0, k, this.n);
    this.n -= k;
    this.compactArena();
    this.rebuildSlots();
    return k;
  }

  private compactArena(): void {
    let bytes = 0;
    for (let i = 0; i < this.n; i += 1)
      bytes +=
        ((this.flags[i] as number) & WIDE) !== 0 ? 2 * (this.idLen[i] as number) : (this.idLen[i] as number);
    let cap = 1 << 16;
    while (cap < bytes) cap *= 2;
    const next = new Uint8Array(cap);
    let at = 0;
    for (let i = 0; i < this.n; i += 1) {
      const off = this.idOff[i] as number;
      const size =
        ((this.flags[i] as number) & WIDE) !== 0 ? 2 * (this.idLen[i] as number) : (this.idLen[i] as number);
      next.set(this.arena.subarray(off, off + size), at);
      this.idOff[i] = at;
      at += size;
    }
    this.arena = next;
    this.used = at;
  }

  save(): SavedIndex {
    const take = <T extends Float64Array | Uint32Array | Uint8Array>(a: T): number[] =>
      Array.from(a.subarray(0, this.n));
    return {
      ms: take(this.ms),
      ns: take(this.ns),
      seq: take(this.seqs),
      flags: Array.from(this.flags.subarray(0, this.n), (f) => f & (FEED | CATEGORY)),
      agent: take(this.agent),
      ids: Array.from({ length: this.n }, (_, i) => this.idAt(i)),
      traceA: take(this.traceA),
      traceB: take(this.traceB),
      agents: this.agents.slice(),
    };
  }

  static load(saved: SavedIndex): EventIndex {
    const index = new EventIndex();
    const n = saved.ids.length;
    while (index.ms.length < n) index.grow();
    index.ms.set(saved.ms);
    index.ns.set(saved.ns);
    index.seqs.set(saved.seq);
    index.agent.set(saved.agent);
    index.traceA.set(saved.traceA);
    index.traceB.set(saved.traceB);
    for (let i = 0; i < n; i += 1) {
      index.stageString(saved.ids[i] as string);
      index.idOff[i] = index.used;
      index.idLen[i] = index.stagedLen;
      index.flags[i] = ((saved.flags[i] ?? 0) & (FEED | CATEGORY)) | (index.stagedWide ? WIDE : 0);
      index.used += index.stagedWide ? 2 * index.stagedLen : index.stagedLen;
    }
    index.agents = saved.agents.slice();
    index.agents.forEach((a, code) => code > 0 && index.agentCodes.set(a, code));
    index.n = n;
    index.rebuildSlots();
    return index;
  }
}
