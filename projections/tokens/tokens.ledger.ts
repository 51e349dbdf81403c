/**
 * Spend records with a time axis, for the rollup (30 days), the series (90 company days) and the
 * budget windows (a calendar month). Unlike the live window, a record here must name an instant: an
 * unparseable stamp cannot be placed on an axis, so the ledger skips it (the live window keeps it).
 * A record stamped ahead of the clock is placed at its arrival: the time the stream stored it, which every
 * node and every replay reads alike (the fold's own clock would move it to the boot time on a restart).
 *
 * Memory follows what the reads need, not the history: records of the last 32 days are kept whole (the
 * rollup's longest window and a calendar month, with a day of zone slack); older ones are folded into sums
 * per quarter hour, seat, phase and model — all the series reads of them. Every zone's midnight falls on
 * a quarter hour, so a company day's bucket sums whole quarters exactly, whatever the timezone.
 */
import { z } from 'zod';
import { SpendRecord } from '../../schema/index.js';
import { instantMs } from '../time/instants.js';
import { lowerBound, RollupIndex } from './rollup-index.js';
import { estimatedOf } from './token-rows.js';

const DAY_MS = 86_400_000;
/** Longest window any read asks for (90 company days) plus a day of zone slack. */
export const ledgerMaxAgeMs = 92 * DAY_MS;
/** Records younger than this are kept whole: the rollup's 30 days and a calendar month, plus a day's slack. */
export const ledgerWholeMs = 32 * DAY_MS;
/** The width of an older record's sum. */
export const SLOT_MS = 15 * 60_000;

export interface LedgerEntry {
  readonly record: SpendRecord;
  readonly ms: number;
}

/** The spend of one quarter hour by one seat in one phase on one model (records older than 32 days). */
export interface SpendSlot {
  /** The quarter hour's start (ms). */
  readonly ms: number;
  readonly handle: string;
  readonly role: string;
  readonly phase: SpendRecord['phase'];
  readonly model: string;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  calls: number;
  /** Of `total_tokens`, those of estimated records. */
  estimated_tokens: number;
}

export interface TokenLedger {
  /** Whole records of the last 32 days, ascending by `ms`. */
  readonly entries: LedgerEntry[];
  /** Ids of the whole records (a repeat of one is skipped). */
  readonly ids: Set<string>;
  /** Sums of older records, ascending by `ms`. */
  readonly slots: SpendSlot[];
  /** Latest aggregated stamp (ms), null before any record. */
  latestMs: number | null;
  /** False until the first record arrived or the boot seed finished: the org budget meter is null till then. */
  reported: boolean;
  now: () => number;
  /** The rollup's sums of hours, days and turns of the whole records (kept beside them, not saved). */
  readonly rollup: RollupIndex;
}

export function emptyLedger(now: () => number = Date.now): TokenLedger {
  return {
    entries: [],
    ids: new Set(),
    slots: [],
    latestMs: null,
    reported: false,
    now,
    rollup: new RollupIndex(),
  };
}

/**
 * The strings records repeat (seat, role, model, turn, ...) as one copy each: a record parsed from JSON
 * holds its own copies, most of its size. Bounded: past the cap the table starts again (only sharing is lost).
 */
const sharedStrings = new Map<string, string>();
const SHARED_MAX = 50_000;
function share<T extends string | null>(text: T): T {
  if (text === null) return text;
  const known = sharedStrings.get(text);
  if (known !== undefined) return known as T;
  if (sharedStrings.size >= SHARED_MAX) sharedStrings.clear();
  sharedStrings.set(text, text);
  return text;
}

function shared(r: SpendRecord): SpendRecord {
  return {
    ...r,
    node: share(r.node),
    handle: share(r.handle),
    agent_id: share(r.agent_id),
    role: share(r.role),
    turn_id: share(r.turn_id),
    worker: share(r.worker),
    provider: share(r.provider),
    model: share(r.model),
  };
}

/** Adds a record to its quarter hour's sum (made when it is the first of its kind there). */
function addToSlot(ledger: TokenLedger, r: SpendRecord, ms: number): void {
  const slotMs = ms - (ms % SLOT_MS);
  const from = lowerBound(ledger.slots, slotMs);
  let i = from;
  for (; i < ledger.slots.length && (ledger.slots[i] as SpendSlot).ms === slotMs; i += 1) {
    const s = ledger.slots[i] as SpendSlot;
    if (s.handle === r.handle && s.role === r.role && s.phase === r.phase && s.model === r.model) {
      s.input_tokens += r.input_tokens;
      s.output_tokens += r.output_tokens;
      s.total_tokens += r.total_tokens;
      s.calls += 1;
      s.estimated_tokens += estimatedOf(r);
      return;
    }
  }
  const { phase, input_tokens, output_tokens, total_tokens } = r;
  const [handle, role, model] = [share(r.handle), share(r.role), share(r.model)];
  const estimated_tokens = estimatedOf(r);
  ledger.slots.splice(i, 0, { ms: slotMs, handle, role, phase, model, input_tokens, output_tokens, total_tokens, calls: 1, estimated_tokens }); // prettier-ignore
}

/**
 * Folds one checked spend record placed at min(stamp, `arrivedMs`), `arrivedMs` being the time its stream
 * stored it (the fold's clock when not given: a record counted as it is stored); a duplicate or undated
 * record is skipped. The record is checked where it entered (the stream's decode, a checkpoint's load).
 */
export function applySpend(ledger: TokenLedger, record: SpendRecord, arrivedMs?: number): TokenLedger {
  if (ledger.ids.has(record.id)) return ledger;
  ledger.reported = true;
  const now = ledger.now();
  const stamped = instantMs(record.timestamp);
  if (stamped === null) return ledger;
  const ms = Math.min(stamped, arrivedMs ?? now);
  if (ms < now - ledgerMaxAgeMs) return ledger;
  ledger.latestMs = Math.max(ledger.latestMs ?? ms, ms);
  // A record already past the whole window (a replay of old history) goes straight to its sum.
  if (ms < now - ledgerWholeMs) {
    addToSlot(ledger, record, ms);
    return ledger;
  }
  const entries = ledger.entries;
  let i = entries.length;
  while (i > 0 && (entries[i - 1]?.ms ?? 0) > ms) i -= 1;
  const entry = { record: shared(record), ms };
  entries.splice(i, 0, entry);
  ledger.rollup.added(entry);
  ledger.ids.add(record.id);
  return ledger;
}

/** Folds records that left the whole window into their sums, and drops sums older than the longest window. */
export function pruneLedger(ledger: TokenLedger): void {
  const now = ledger.now();
  for (const e of ledger.entries.splice(0, lowerBound(ledger.entries, now - ledgerWholeMs))) {
    ledger.ids.delete(e.record.id);
    ledger.rollup.removed(e);
    if (e.ms >= now - ledgerMaxAgeMs) addToSlot(ledger, e.record, e.ms);
  }
  ledger.slots.splice(0, lowerBound(ledger.slots, now - ledgerMaxAgeMs));
}

/** Whole records placed in [fromMs, toMs): callers ask within the last 32 days (rollup, budgets). */
export function ledgerRange(ledger: TokenLedger, fromMs: number, toMs = Infinity): SpendRecord[] {
  return ledgerEntries(ledger, fromMs, toMs).map((e) => e.record);
}

/** The items of `list` (ascending by `ms`) with `fromMs <= ms < toMs`. */
function inRange<T extends { readonly ms: number }>(list: readonly T[], fromMs: number, toMs: number): T[] {
  const out: T[] = [];
  for (let i = lowerBound(list, fromMs); i < list.length && (list[i] as T).ms < toMs; i += 1)
    out.push(list[i] as T);
  return out;
}

/** Whole records placed in [fromMs, toMs), ascending. */
export const ledgerEntries = (ledger: TokenLedger, fromMs: number, toMs = Infinity): LedgerEntry[] =>
  inRange(ledger.entries, fromMs, toMs);

/** Sums whose quarter hour starts in [fromMs, toMs), ascending (exact for quarter-hour edges). */
export const ledgerSlots = (ledger: TokenLedger, fromMs: number, toMs: number): SpendSlot[] =>
  inRange(ledger.slots, fromMs, toMs);

const count = z.number().int().nonnegative();
/** A saved quarter-hour sum, as a checkpoint holds it. */
const SavedSlot = z.object({
  ms: z.number().int().nonnegative(),
  handle: z.string(),
  role: z.string(),
  phase: SpendRecord.shape.phase,
  model: z.string(),
  input_tokens: count,
  output_tokens: count,
  total_tokens: count,
  calls: count,
  estimated_tokens: count,
});
/** A saved whole record with the instant it was placed at (its stamp, or its arrival when stamped ahead). */
const SavedEntry = z.object({ record: z.unknown(), ms: z.number().int() });
const SavedLedger = z.object({ entries: z.array(SavedEntry), slots: z.array(SavedSlot).default([]) });

/** What a checkpoint keeps: the whole records where they were placed, and the older sums. */
export function saveLedger(ledger: TokenLedger): { entries: LedgerEntry[]; slots: SpendSlot[] } {
  return { entries: ledger.entries, slots: ledger.slots };
}

/**
 * A saved ledger folded again on this node's clock into `ledger` (empty); false when the saved shape is not
 * one (the runner then replays from zero).
 */
export function loadLedger(ledger: TokenLedger, saved: unknown): boolean {
  const parsed = SavedLedger.safeParse(saved);
  if (!parsed.success) return false;
  const floor = ledger.now() - ledgerMaxAgeMs;
  for (const slot of parsed.data.slots) if (slot.ms >= floor) ledger.slots.push({ ...slot });
  ledger.slots.sort((a, b) => a.ms - b.ms);
  for (const entry of parsed.data.entries) {
    // A record this build no longer reads is skipped, not the whole checkpoint.
    const record = SpendRecord.safeParse(entry.record);
    if (record.success) applySpend(ledger, record.data, entry.ms);
  }
  const last = ledger.slots[ledger.slots.length - 1];
  if (last !== undefined) ledger.latestMs = Math.max(ledger.latestMs ?? last.ms, last.ms);
  return true;
}
