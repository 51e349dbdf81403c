/**
 * Event ids for the events index, with no string per id for the collector to walk:
 *  - `IdArena`: every id's code units in one byte array (one byte a unit, two for an id with a unit above
 *    0xFF), compared unit by unit exactly as JavaScript compares strings. An id is first *staged* (written
 *    past the used bytes and hashed on the way) and kept only when its entry is committed.
 *  - `IdTable`: open addressing from an id's 64-bit hash (two FNV-1a words) to (sequence, instant), so
 *    `/events/{id}` needs no scan. A hit is by hash: the caller checks the record it reads back.
 *  - `SeatCodes`: seat handles interned as small numbers (the index's seat column).
 */

const BASIS_A = 0x811c9dc5;
const BASIS_B = 0x01000193;

/** FNV-1a over UTF-16 code units, from a given offset basis (two bases give two independent words). */
function fnv(text: string, basis: number): number {
  let h = basis >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The 64-bit hash of a text, as two words. */
export function hashText(text: string): [number, number] {
  return [fnv(text, BASIS_A), fnv(text, BASIS_B)];
}

/** The 64-bit hash of a text given as ASCII bytes (the same words `hashText` gives its string), into `words`. */
export function hashAscii(bytes: Uint8Array, start: number, end: number, words: Uint32Array): void {
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

const wideDecoder = new TextDecoder('utf-16le');
const narrowDecoder = new TextDecoder('latin1');

export class IdArena {
  /** Appended ids; a staged id sits past `used` until it is committed. */
  private bytes = new Uint8Array(1 << 16);
  private used = 0;
  private stagedLen = 0;
  private stagedWide = false;
  /** The staged id's hash words. */
  stagedA = 0;
  stagedB = 0;

  get capacity(): number {
    return this.bytes.length;
  }

  /** Makes room for `more` bytes past the used ones (grows by doubling, so appends stay amortised O(1)). */
  reserve(more: number): void {
    if (this.used + more <= this.bytes.length) return;
    let cap = this.bytes.length * 2;
    while (cap < this.used + more) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.bytes.subarray(0, this.used));
    this.bytes = next;
  }

  /** Stages an id given as ASCII bytes (the caller checked every byte is below 0x80), hashing it on the way. */
  stageAscii(source: Uint8Array, start: number, end: number): void {
    const len = end - start;
    this.reserve(len);
    const a = this.bytes;
    const at = this.used - start;
    let ha = BASIS_A;
    let hb = BASIS_B;
    for (let i = start; i < end; i += 1) {
      const c = source[i] as number;
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
    const a = this.bytes;
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

  /** Keeps the staged id; answers its offset (its length and width are `stagedLength` / `stagedIsWide`). */
  commit(): number {
    const off = this.used;
    this.used += this.stagedWide ? 2 * this.stagedLen : this.stagedLen;
    return off;
  }

  get stagedLength(): number {
    return this.stagedLen;
  }

  get stagedIsWide(): boolean {
    return this.stagedWide;
  }

  private unit(off: number, wide: boolean, k: number): number {
    const a = this.bytes;
    return wide ? (a[off + 2 * k] as number) | ((a[off + 2 * k + 1] as number) << 8) : (a[off + k] as number);
  }

  /** Compares a held id with the staged one, as strings compare. */
  compareStaged(off: number, len: number, wide: boolean): number {
    const sOff = this.used;
    const sLen = this.stagedLen;
    const sWide = this.stagedWide;
    const common = len < sLen ? len : sLen;
    if (!wide && !sWide) {
      const a = this.bytes;
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

  /** Compares a held id with a string, as strings compare. */
  compareString(off: number, len: number, wide: boolean, id: string): number {
    const common = len < id.length ? len : id.length;
    for (let k = 0; k < common; k += 1) {
      const d = this.unit(off, wide, k) - id.charCodeAt(k);
      if (d !== 0) return d;
    }
    return len - id.length;
  }

  /** Word `which` of a held id's 64-bit hash (the same as `hashText` gives its string). */
  hash(off: number, len: number, wide: boolean, which: 0 | 1): number {
    let h = which === 0 ? BASIS_A : BASIS_B;
    if (!wide) {
      const a = this.bytes;
      for (let k = off; k < off + len; k += 1) h = Math.imul(h ^ (a[k] as number), 0x01000193) >>> 0;
      return h;
    }
    for (let k = 0; k < len; k += 1) h = Math.imul(h ^ this.unit(off, wide, k), 0x01000193) >>> 0;
    return h;
  }

  decode(off: number, len: number, wide: boolean): string {
    return wide
      ? wideDecoder.decode(this.bytes.subarray(off, off + 2 * len))
      : narrowDecoder.decode(this.bytes.subarray(off, off + len));
  }

  /**
   * Keeps only the ids of the `n` entries given (offsets are rewritten in place), in a new arena sized to
   * them: what remains after older entries aged out.
   */
  compact(n: number, offs: Float64Array, size: (i: number) => number): void {
    let bytes = 0;
    for (let i = 0; i < n; i += 1) bytes += size(i);
    let cap = 1 << 16;
    while (cap < bytes) cap *= 2;
    const next = new Uint8Array(cap);
    let at = 0;
    for (let i = 0; i < n; i += 1) {
      const off = offs[i] as number;
      const len = size(i);
      next.set(this.bytes.subarray(off, off + len), at);
      offs[i] = at;
      at += len;
    }
    this.bytes = next;
    this.used = at;
  }
}

/** Where an id was found: its stream sequence and instant (milliseconds). */
export interface IdHit {
  readonly seq: number;
  readonly ms: number;
}

const MIN_SLOTS = 2048;

export class IdTable {
  /**
   * 24 bytes a slot in one buffer (one cache line to touch): hash words at u32[6s], u32[6s+1]; sequence + 1
   * (0 = empty) at f64[3s+1]; instant ms at f64[3s+2].
   */
  private cap = MIN_SLOTS;
  private words = new Uint32Array(0);
  private nums = new Float64Array(0);
  private used = 0;

  constructor(entries = 0) {
    this.allocate(IdTable.slotsFor(entries));
  }

  /** Slots for `entries` ids: a power of two, at least twice the count. */
  static slotsFor(entries: number): number {
    let cap = MIN_SLOTS;
    while (cap < entries * 2) cap *= 2;
    return cap;
  }

  get slots(): number {
    return this.cap;
  }

  private allocate(cap: number): void {
    const buffer = new ArrayBuffer(cap * 24);
    this.cap = cap;
    this.words = new Uint32Array(buffer);
    this.nums = new Float64Array(buffer);
    this.used = 0;
  }

  /** Makes room for `entries` ids in all without a rehash on the way. */
  reserve(entries: number): void {
    const cap = IdTable.slotsFor(entries);
    if (cap > this.cap) this.resize(cap);
  }

  add(a: number, b: number, seq: number, ms: number): void {
    if ((this.used + 1) * 2 > this.cap) this.resize(this.cap * 4);
    const mask = this.cap - 1;
    const nums = this.nums;
    let s = (a ^ Math.imul(b, 0x9e3779b1)) & mask;
    while (nums[3 * s + 1] !== 0) s = (s + 1) & mask;
    this.words[6 * s] = a;
    this.words[6 * s + 1] = b;
    nums[3 * s + 1] = seq + 1;
    nums[3 * s + 2] = ms;
    this.used += 1;
  }

  private resize(cap: number): void {
    const words = this.words;
    const nums = this.nums;
    const old = this.cap;
    this.allocate(cap);
    for (let s = 0; s < old; s += 1) {
      const seq = nums[3 * s + 1] as number;
      if (seq !== 0)
        this.add(words[6 * s] as number, words[6 * s + 1] as number, seq - 1, nums[3 * s + 2] as number);
    }
  }

  /** Empties the table, sized for `entries` ids (it shrinks when fewer are held). */
  clear(entries: number): void {
    this.allocate(IdTable.slotsFor(entries));
  }

  /** Every slot holding this hash, newest first; one probe run, no scan. */
  find(a: number, b: number): IdHit[] {
    const out: IdHit[] = [];
    if (this.used === 0) return out;
    const mask = this.cap - 1;
    const nums = this.nums;
    for (let s = (a ^ Math.imul(b, 0x9e3779b1)) & mask; nums[3 * s + 1] !== 0; s = (s + 1) & mask)
      if (this.words[6 * s] === a && this.words[6 * s + 1] === b)
        out.push({ seq: (nums[3 * s + 1] as number) - 1, ms: nums[3 * s + 2] as number });
    return out.sort((x, y) => y.ms - x.ms || y.seq - x.seq);
  }
}

/** Seat handles interned as codes from 1 (0 means none). */
export class SeatCodes {
  private handles: string[] = [''];
  private codes = new Map<string, number>();
  /** Codes by the FNV hash of the handle's bytes (the replay's path). */
  private byHash = new Map<number, number>();

  static load(handles: readonly string[]): SeatCodes {
    const seats = new SeatCodes();
    seats.handles = handles.length > 0 ? handles.slice() : [''];
    seats.handles.forEach((h, code) => code > 0 && seats.codes.set(h, code));
    return seats;
  }

  save(): string[] {
    return this.handles.slice();
  }

  codeOf(handle: string): number | undefined {
    return this.codes.get(handle);
  }

  /** The handle's code (0 for none), interning it when new. */
  intern(handle: string | undefined): number {
    if (handle === undefined || handle === '') return 0;
    let code = this.codes.get(handle);
    if (code === undefined) {
      code = this.handles.length;
      this.handles.push(handle);
      this.codes.set(handle, code);
    }
    return code;
  }

  /** `intern` for a handle given as ASCII bytes, without making its string once it is known. */
  internAscii(bytes: Uint8Array, start: number, end: number): number {
    if (end === start) return 0;
    let h = BASIS_A;
    for (let i = start; i < end; i += 1) h = Math.imul(h ^ (bytes[i] as number), 0x01000193) >>> 0;
    const code = this.byHash.get(h);
    if (code !== undefined) {
      const known = this.handles[code] as string;
      let same = known.length === end - start;
      for (let i = 0; same && i < known.length; i += 1) same = known.charCodeAt(i) === bytes[start + i];
      if (same) return code;
    }
    const fresh = this.intern(
      Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1'),
    );
    if (code === undefined) this.byHash.set(h, fresh);
    return fresh;
  }
}
