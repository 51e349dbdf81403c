/**
 * The live spend window (spec rule 5, limit "live spend window"): a rolling 24 h aged on this node's
 * clock, at most the newest 24,000 records.
 *  - a record stamped before the window is dropped on arrival;
 *  - one stamped ahead of the clock ages from its arrival instead: the time its stream stored it, the same on
 *    every node and after a restart (the fold's clock would give it a fresh 24 h at each boot);
 *  - one with an unparseable stamp is kept (it never ages out) and is the first dropped by the cap.
 * `changed` tells the shared 5-second tick whether there is anything to push.
 */
import type { SpendRecord } from '../../schema/index.js';
import { instantMs } from '../time/instants.js';
import {
  addFull,
  byPhaseAndModel,
  groupRows,
  zeroFull,
  type TokenRow,
  type TokenRowFull,
} from './token-rows.js';

export const spendWindowMs = 24 * 3_600_000;
export const spendWindowCap = 24_000;

interface Entry {
  readonly record: SpendRecord;
  /** The instant it ages from; null for an unparseable stamp. */
  readonly agesFrom: number | null;
}

export interface SpendWindowOptions {
  readonly now?: () => number;
  readonly windowMs?: number;
  readonly cap?: number;
}

export class SpendWindow {
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly cap: number;
  /** Dated entries, ascending by `agesFrom`. */
  private readonly dated: Entry[] = [];
  /** Undated entries in arrival order. */
  private readonly undated: Entry[] = [];
  private readonly ids = new Set<string>();
  /** True after a change the tick has not pushed yet. */
  changed = false;

  constructor(opts: SpendWindowOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.windowMs = opts.windowMs ?? spendWindowMs;
    this.cap = opts.cap ?? spendWindowCap;
  }

  get size(): number {
    return this.dated.length + this.undated.length;
  }

  /**
   * Folds one record that arrived (was stored) at `arrivedMs`, this node's clock when not given; returns
   * whether the window changed.
   */
  add(record: SpendRecord, arrivedMs?: number): boolean {
    if (this.ids.has(record.id)) return false;
    const now = this.now();
    const stamped = instantMs(record.timestamp);
    const agesFrom = stamped === null ? null : Math.min(stamped, arrivedMs ?? now);
    if (agesFrom !== null && agesFrom < now - this.windowMs) return false;
    const entry: Entry = { record, agesFrom };
    if (entry.agesFrom === null) this.undated.push(entry);
    else insertSorted(this.dated, entry);
    this.ids.add(record.id);
    this.evictOverCap();
    this.age();
    this.changed = true;
    return true;
  }

  /** Drops what aged out; returns whether anything did. */
  age(): boolean {
    const floor = this.now() - this.windowMs;
    let dropped = 0;
    while (dropped < this.dated.length && (this.dated[dropped]?.agesFrom ?? 0) < floor) dropped += 1;
    if (dropped === 0) return false;
    for (const e of this.dated.splice(0, dropped)) this.ids.delete(e.record.id);
    this.changed = true;
    return true;
  }

  private evictOverCap(): void {
    while (this.size > this.cap) {
      // The first to go is an unparseable one (oldest arrival), then the oldest dated one.
      const gone = this.undated.length > 0 ? this.undated.shift() : this.dated.shift();
      if (gone) this.ids.delete(gone.record.id);
    }
  }

  records(): SpendRecord[] {
    return [...this.dated, ...this.undated].map((e) => e.record);
  }

  /** What a checkpoint keeps: each record with the instant it ages from (null when undated). */
  saved(): Array<{ record: SpendRecord; agesFrom: number | null }> {
    return [...this.dated, ...this.undated].map((e) => ({ record: e.record, agesFrom: e.agesFrom }));
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** The `tokens` snapshot section: totals and the usual breakdowns over the window. */
  summary(): SpendWindowSummary {
    this.age();
    const records = this.records();
    const totals = zeroFull();
    for (const r of records) addFull(totals, r);
    return {
      window_hours: this.windowMs / 3_600_000,
      since: new Date(this.now() - this.windowMs).toISOString(),
      records: records.length,
      totals,
      ...byPhaseAndModel(records),
      by_agent: groupRows(
        records,
        (r) => (r.handle === '' ? null : r.handle),
        (r) => ({ handle: r.handle, role: r.role, agent_id: r.agent_id }),
      ),
    };
  }

  /** Totals of every seat at once, for a whole `/agents` answer. */
  totalsBySeat(): Map<string, TokenRowFull> {
    this.age();
    const out = new Map<string, TokenRowFull>();
    for (const e of [...this.dated, ...this.undated]) {
      if (e.record.handle === '') continue; // no seat's spend
      let row = out.get(e.record.handle);
      if (!row) out.set(e.record.handle, (row = zeroFull()));
      addFull(row, e.record);
    }
    return out;
  }
}

function insertSorted(list: Entry[], entry: Entry): void {
  const at = entry.agesFrom ?? 0;
  // Records mostly arrive in order: search from the end.
  let i = list.length;
  while (i > 0 && (list[i - 1]?.agesFrom ?? 0) > at) i -= 1;
  list.splice(i, 0, entry);
}

export interface SpendWindowSummary {
  window_hours: number;
  since: string;
  records: number;
  totals: TokenRowFull;
  by_phase: Array<{ phase: string } & TokenRow>;
  by_model: Array<{ model: string } & TokenRow>;
  by_agent: Array<{ handle: string; role: string; agent_id: string } & TokenRow>;
}
