/**
 * The events projection's state and its window of the newest 400 feed rows (spec rule 2), oldest first.
 * A row the replay admits is held as its head bytes (copied into a shared slab, no object per field) and
 * decoded only when read. A replay of a million events offers most of them and keeps only the last 400, so
 * while replaying the candidates are kept as columns (`ReplayWindow`, no object a record) and made rows at
 * the end. The window is the newest 400 of all feed rows offered, whatever the order they came in, which is
 * what lets the two merge.
 */
import { compareInstants, type EventCategory, type EventRow, type Instant } from '../../schema/index.js';
import { decodeHead, topicAfterPayload } from './events.decode.js';
import { categoryCodes, type EventIndex } from './events.index.js';

/** Feed rows held in memory (spec rule 2: newest 400 events). */
export const FEED_WINDOW = 400;

export interface WindowRow {
  readonly instant: Instant;
  readonly seq: number;
  readonly row: EventRow;
}

export interface EventsState {
  readonly index: EventIndex;
  /**
   * The newest feed rows, oldest first: the last FEED_WINDOW entries count (the array may hold up to twice
   * that before it is trimmed, so an in-order append costs no shift). Read it through `windowRows`.
   */
  window: WindowRow[];
  /** The feed row the last applied message added (null when it added none): what a live push sends. */
  lastAdded: WindowRow | null;
  /** True once the boot replay is done: a row admitted from then on is settled at once. */
  live?: boolean;
  /** While replaying: the candidates the fast path offered, not yet rows. */
  staged?: ReplayWindow;
}

/** The window's rows, oldest first, at most FEED_WINDOW. */
export function windowRows(state: EventsState): WindowRow[] {
  mergeStaged(state);
  const w = state.window;
  return w.length > FEED_WINDOW ? w.slice(w.length - FEED_WINDOW) : w;
}

/** Head copies share slabs of this size; a slab is freed once no held row points into it. */
const SLAB = 1 << 20;
let slab = new Uint8Array(SLAB);
let slabUsed = 0;

/**
 * A window row kept as the bytes of its record's head; the row is decoded on first read. While a replay
 * runs the row points into the message it came from (most rows are pushed out of the window soon after);
 * `settle` copies the head into a shared slab, so a held row keeps no message alive.
 */
export class HeldRow implements WindowRow {
  private bytes: Uint8Array | null;
  private at = 0;
  private end: number;
  private settled = false;
  private decoded: EventRow | null = null;
  /** A `topic` the writer put after the payload (found when the row settles). */
  private lateTopic: string | undefined;

  /** `idStart`/`idEnd`: where the (ASCII, unescaped) id is inside the head. */
  constructor(
    readonly ms: number,
    readonly ns: number,
    readonly seq: number,
    data: Uint8Array,
    headEnd: number,
    private readonly category: EventCategory,
    private readonly failed: boolean,
    private readonly idStart: number,
    private readonly idEnd: number,
    /** Whether the head holds a `topic`; if not, one after the payload is looked for when settling. */
    private readonly topicInHead: boolean,
  ) {
    this.bytes = data;
    this.end = headEnd;
  }

  /** Copies the head off the message it came from (reading a `topic` written after the payload first). */
  settle(): void {
    if (this.settled || this.bytes === null) return;
    if (!this.topicInHead) this.lateTopic = topicAfterPayload(this.bytes, this.end);
    const size = this.end - this.at;
    const head = this.bytes.subarray(this.at, this.end);
    if (size > SLAB / 4) {
      this.bytes = head.slice();
      this.at = 0;
    } else {
      if (slabUsed + size > SLAB) {
        slab = new Uint8Array(SLAB);
        slabUsed = 0;
      }
      slab.set(head, slabUsed);
      this.bytes = slab;
      this.at = slabUsed;
      slabUsed += size;
    }
    this.end = this.at + size;
    this.settled = true;
  }

  get instant(): Instant {
    return { ms: this.ms, ns: this.ns };
  }

  get row(): EventRow {
    if (this.decoded === null) {
      this.settle();
      // The scanner vouched for these bytes: the general decoder reads them as a row.
      const row = decodeHead((this.bytes as Uint8Array).subarray(this.at, this.end)) as EventRow;
      if (this.lateTopic !== undefined) row.topic = this.lateTopic;
      row.category = this.category;
      row.failed = this.failed;
      this.decoded = row;
      this.bytes = null;
    }
    return this.decoded;
  }

  /** Compares the ids of two held rows by their bytes (ASCII: the same order as the strings). */
  compareId(other: HeldRow): number {
    if (this.bytes === null || other.bytes === null) return compareStrings(this.row.id, other.row.id);
    const x = this.at + this.idStart;
    const y = other.at + other.idStart;
    return compareBytes(
      this.bytes,
      x,
      x + this.idEnd - this.idStart,
      other.bytes,
      y,
      y + other.idEnd - other.idStart,
    );
  }
}

/** Compares two byte ranges (ASCII ids: the same order as their strings). */
function compareBytes(
  a: Uint8Array,
  x: number,
  xEnd: number,
  b: Uint8Array,
  y: number,
  yEnd: number,
): number {
  const la = xEnd - x;
  const lb = yEnd - y;
  const common = la < lb ? la : lb;
  for (let k = 0; k < common; k += 1) {
    const d = (a[x + k] as number) - (b[y + k] as number);
    if (d !== 0) return d;
  }
  return la - lb;
}

const compareStrings = (x: string, y: string): number => (x === y ? 0 : x < y ? -1 : 1);

function compareRows(a: WindowRow, b: WindowRow): number {
  if (a instanceof HeldRow && b instanceof HeldRow)
    return a.ms !== b.ms ? a.ms - b.ms : a.ns !== b.ns ? a.ns - b.ns : a.compareId(b);
  return compareInstants(a.instant, b.instant) || compareStrings(a.row.id, b.row.id);
}

/** Makes the staged candidates rows of the window. */
function mergeStaged(state: EventsState): void {
  const staged = state.staged;
  if (staged === undefined || staged.size === 0) return;
  for (const row of staged.take()) admitToWindow(state, row);
}

/** Copies the heads of the window's rows off their messages (after a replay). */
export function settleWindow(state: EventsState): void {
  mergeStaged(state);
  state.staged = undefined;
  state.live = true;
  for (const w of state.window) if (w instanceof HeldRow) w.settle();
}

/** Keeps the window sorted and bounded; an event older than a full window's oldest row stays out of it. */
export function admitToWindow(state: EventsState, entry: WindowRow): boolean {
  const w = state.window;
  const last = w[w.length - 1];
  if (last === undefined || compareRows(last, entry) < 0) w.push(entry);
  else {
    const oldest = w.length >= FEED_WINDOW ? w[w.length - FEED_WINDOW] : undefined;
    if (oldest !== undefined && compareRows(oldest, entry) > 0) return false;
    let at = w.length;
    while (at > 0 && compareRows(w[at - 1] as WindowRow, entry) > 0) at -= 1;
    w.splice(at, 0, entry);
  }
  if (w.length >= 2 * FEED_WINDOW) state.window = w.slice(w.length - FEED_WINDOW);
  return true;
}

const STAGED = 2 * FEED_WINDOW;

/**
 * The newest feed rows offered while replaying, oldest first, as columns: the same rule as `admitToWindow`
 * (an entry older than a full window's oldest stays out) with nothing allocated a record. Entries never tie:
 * the index refused a second entry of the same instant and id before it got here.
 */
export class ReplayWindow {
  private readonly ms = new Float64Array(STAGED);
  private readonly ns = new Uint32Array(STAGED);
  private readonly seq = new Float64Array(STAGED);
  private readonly data: Array<Uint8Array | null> = new Array<Uint8Array | null>(STAGED).fill(null);
  private readonly headEnd = new Int32Array(STAGED);
  private readonly idStart = new Int32Array(STAGED);
  private readonly idEnd = new Int32Array(STAGED);
  /** Category code, then 0x40 failed, 0x80 a topic in the head. */
  private readonly kind = new Uint8Array(STAGED);
  private n = 0;

  get size(): number {
    return this.n;
  }

  /** Entry `i` against the key: negative when the entry sorts first. */
  private compare(i: number, ms: number, ns: number, b: Uint8Array, idStart: number, idEnd: number): number {
    const m = this.ms[i] as number;
    if (m !== ms) return m - ms;
    const u = this.ns[i] as number;
    if (u !== ns) return u - ns;
    return compareBytes(
      this.data[i] as Uint8Array,
      this.idStart[i] as number,
      this.idEnd[i] as number,
      b,
      idStart,
      idEnd,
    );
  }

  /** Offers one feed entry (fields as `HeldRow` takes them, the category as its code). */
  offer(
    ms: number,
    ns: number,
    seq: number,
    data: Uint8Array,
    headEnd: number,
    categoryCode: number,
    failed: boolean,
    idStart: number,
    idEnd: number,
    topicInHead: boolean,
  ): void {
    const n = this.n;
    let at = n;
    if (n > 0 && this.compare(n - 1, ms, ns, data, idStart, idEnd) > 0) {
      if (n >= FEED_WINDOW && this.compare(n - FEED_WINDOW, ms, ns, data, idStart, idEnd) > 0) return;
      while (at > 0 && this.compare(at - 1, ms, ns, data, idStart, idEnd) > 0) at -= 1;
      this.openAt(at);
    }
    this.ms[at] = ms;
    this.ns[at] = ns;
    this.seq[at] = seq;
    this.data[at] = data;
    this.headEnd[at] = headEnd;
    this.idStart[at] = idStart;
    this.idEnd[at] = idEnd;
    this.kind[at] = categoryCode | (failed ? 0x40 : 0) | (topicInHead ? 0x80 : 0);
    this.n = n + 1;
    if (this.n === STAGED) {
      this.move(STAGED - FEED_WINDOW, STAGED, 0);
      this.data.fill(null, FEED_WINDOW);
      this.n = FEED_WINDOW;
    }
  }

  /** Moves entries at..n-1 one place up: mostly a few (a late entry lands near the end), copied by hand. */
  private openAt(at: number): void {
    if (this.n - at > 16) {
      this.move(at, this.n, at + 1);
      return;
    }
    for (let j = this.n; j > at; j -= 1) {
      this.ms[j] = this.ms[j - 1] as number;
      this.ns[j] = this.ns[j - 1] as number;
      this.seq[j] = this.seq[j - 1] as number;
      this.data[j] = this.data[j - 1] as Uint8Array;
      this.headEnd[j] = this.headEnd[j - 1] as number;
      this.idStart[j] = this.idStart[j - 1] as number;
      this.idEnd[j] = this.idEnd[j - 1] as number;
      this.kind[j] = this.kind[j - 1] as number;
    }
  }

  /** Moves entries [from, to) so the first lands at `dest`. */
  private move(from: number, to: number, dest: number): void {
    this.ms.copyWithin(dest, from, to);
    this.ns.copyWithin(dest, from, to);
    this.seq.copyWithin(dest, from, to);
    this.data.copyWithin(dest, from, to);
    this.headEnd.copyWithin(dest, from, to);
    this.idStart.copyWithin(dest, from, to);
    this.idEnd.copyWithin(dest, from, to);
    this.kind.copyWithin(dest, from, to);
  }

  /** The newest FEED_WINDOW candidates as rows, oldest first; empties the window. */
  take(): HeldRow[] {
    const rows: HeldRow[] = [];
    for (let i = Math.max(0, this.n - FEED_WINDOW); i < this.n; i += 1) {
      const kind = this.kind[i] as number;
      rows.push(
        new HeldRow(
          this.ms[i] as number,
          this.ns[i] as number,
          this.seq[i] as number,
          this.data[i] as Uint8Array,
          this.headEnd[i] as number,
          categoryCodes[kind & 0x3f] as EventCategory,
          (kind & 0x40) !== 0,
          this.idStart[i] as number,
          this.idEnd[i] as number,
          (kind & 0x80) !== 0,
        ),
      );
    }
    this.data.fill(null);
    this.n = 0;
    return rows;
  }
}
