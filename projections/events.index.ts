/**
 * The events projection's index over the whole retained history, kept in columns (typed arrays plus two
 * string columns) sorted by (instant, id) ascending: about 60 bytes an event instead of a row object, so a
 * million events stay well under 100 MB. A row itself is read back from the stream by its sequence.
 * An entry equal to one already held (same instant and id) is a duplicate and is not added.
 */
import { EventCategory, type Instant } from '../schema/index.js';

export const categoryCodes = Object.values(EventCategory);
const FEED = 0x80;

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

export interface SavedIndex {
  readonly ms: number[];
  readonly ns: number[];
  readonly seq: number[];
  readonly flags: number[];
  readonly agent: number[];
  readonly ids: string[];
  readonly traces: string[];
  readonly agents: string[];
}

export class EventIndex {
  private ms = new Float64Array(1024);
  private ns = new Uint32Array(1024);
  private seqs = new Float64Array(1024);
  private flags = new Uint8Array(1024);
  private agent = new Uint32Array(1024);
  private ids: string[] = [];
  private traces: string[] = [];
  /** Interned seat handles; 0 means none. */
  private agents: string[] = [''];
  private agentCodes = new Map<string, number>();
  private n = 0;

  get size(): number {
    return this.n;
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
  }

  /** Compares entry `i` with a key: negative when the entry sorts first. */
  compareAt(i: number, ms: number, ns: number, id: string): number {
    const a = this.ms[i] as number;
    if (a !== ms) return a - ms;
    const b = this.ns[i] as number;
    if (b !== ns) return b - ns;
    const c = this.ids[i] as string;
    return c === id ? 0 : c < id ? -1 : 1;
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

  /** Adds an entry in order; false when an equal entry (same instant and id) is already held. */
  insert(e: IndexEntry): boolean {
    const { ms, ns } = e.instant;
    let at = this.n;
    if (this.n > 0) {
      const last = this.compareAt(this.n - 1, ms, ns, e.id);
      if (last === 0) return false;
      if (last > 0) {
        at = this.lowerBound(ms, ns, e.id);
        if (at < this.n && this.compareAt(at, ms, ns, e.id) === 0) return false;
      }
    }
    if (this.n === this.ms.length) this.grow();
    if (at < this.n) {
      for (const col of [this.ms, this.ns, this.seqs, this.flags, this.agent])
        col.copyWithin(at + 1, at, this.n);
      this.ids.splice(at, 0, e.id);
      this.traces.splice(at, 0, e.traceId);
    } else {
      this.ids.push(e.id);
      this.traces.push(e.traceId);
    }
    this.ms[at] = ms;
    this.ns[at] = ns;
    this.seqs[at] = e.seq;
    this.flags[at] = categoryCodes.indexOf(e.category) | (e.feed ? FEED : 0);
    this.agent[at] = this.intern(e.agentId);
    this.n += 1;
    return true;
  }

  private intern(agentId: string | undefined): number {
    if (agentId === undefined || agentId === '') return 0;
    let code = this.agentCodes.get(agentId);
    if (code === undefined) {
      code = this.agents.length;
      this.agents.push(agentId);
      this.agentCodes.set(agentId, code);
    }
    return code;
  }

  seqAt(i: number): number {
    return this.seqs[i] as number;
  }

  idAt(i: number): string {
    return this.ids[i] as string;
  }

  instantAt(i: number): Instant {
    return { ms: this.ms[i] as number, ns: this.ns[i] as number };
  }

  /** True when entry `i` passes the filter (an unknown seat matches nothing). */
  matches(i: number, f: IndexFilter, agentCode: number | null): boolean {
    const flags = this.flags[i] as number;
    if (f.feedOnly && (flags & FEED) === 0) return false;
    if (f.category !== undefined && categoryCodes[flags & 0x7f] !== f.category) return false;
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

  /** The position of the newest entry with this id, or -1. */
  findId(id: string): number {
    return this.ids.lastIndexOf(id);
  }

  /** Positions of the trace's entries, oldest first. */
  trace(traceId: string): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.n; i += 1) if (this.traces[i] === traceId) out.push(i);
    return out;
  }

  /** Forgets every entry older than `floorMs` (they can no longer be listed). */
  dropBefore(floorMs: number): number {
    let k = 0;
    while (k < this.n && (this.ms[k] as number) < floorMs) k += 1;
    if (k === 0) return 0;
    for (const col of [this.ms, this.ns, this.seqs, this.flags, this.agent]) col.copyWithin(0, k, this.n);
    this.ids.splice(0, k);
    this.traces.splice(0, k);
    this.n -= k;
    return k;
  }

  save(): SavedIndex {
    const take = <T extends Float64Array | Uint32Array | Uint8Array>(a: T): number[] =>
      Array.from(a.subarray(0, this.n));
    return {
      ms: take(this.ms),
      ns: take(this.ns),
      seq: take(this.seqs),
      flags: take(this.flags),
      agent: take(this.agent),
      ids: this.ids.slice(),
      traces: this.traces.slice(),
      agents: this.agents.slice(),
    };
  }

  static load(saved: SavedIndex): EventIndex {
    const index = new EventIndex();
    const n = saved.ids.length;
    let cap = 1024;
    while (cap < n) cap *= 2;
    index.ms = new Float64Array(cap);
    index.ms.set(saved.ms);
    index.ns = new Uint32Array(cap);
    index.ns.set(saved.ns);
    index.seqs = new Float64Array(cap);
    index.seqs.set(saved.seq);
    index.flags = new Uint8Array(cap);
    index.flags.set(saved.flags);
    index.agent = new Uint32Array(cap);
    index.agent.set(saved.agent);
    index.ids = saved.ids.slice();
    index.traces = saved.traces.slice();
    index.agents = saved.agents.slice();
    index.agents.forEach((a, code) => code > 0 && index.agentCodes.set(a, code));
    index.n = n;
    return index;
  }
}
