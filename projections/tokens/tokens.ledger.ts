/**
 * Spend records with a time axis, for the rollup (30 days), the series (90 company days) and the
 * budget windows (a calendar month). Unlike the live window, a record here must name an instant: an
 * unparseable stamp cannot be placed on an axis, so the ledger skips it (the live window keeps it).
 * A record stamped ahead of the clock is placed at its arrival.
 */
import { SpendRecord } from '../../schema/index.js';
import { instantMs } from '../time/instants.js';

/** Longest window any read asks for (90 company days) plus a day of zone slack. */
export const ledgerMaxAgeMs = 92 * 86_400_000;

export interface LedgerEntry {
  readonly record: SpendRecord;
  readonly ms: number;
}

export interface TokenLedger {
  /** Ascending by `ms`. */
  readonly entries: LedgerEntry[];
  readonly ids: Set<string>;
  /** Latest aggregated stamp (ms), null before any record. */
  latestMs: number | null;
  /** False until the first record arrived or the boot seed finished: the org budget meter is null till then. */
  reported: boolean;
  now: () => number;
}

export function emptyLedger(now: () => number = Date.now): TokenLedger {
  return { entries: [], ids: new Set(), latestMs: null, reported: false, now };
}

/** Folds one decoded spend message; malformed or duplicate records are skipped. */
export function applySpend(ledger: TokenLedger, message: unknown): TokenLedger {
  const parsed = SpendRecord.safeParse(message);
  if (!parsed.success || ledger.ids.has(parsed.data.id)) return ledger;
  ledger.reported = true;
  const now = ledger.now();
  const stamped = instantMs(parsed.data.timestamp);
  if (stamped === null || stamped < now - ledgerMaxAgeMs) return ledger;
  const ms = Math.min(stamped, now);
  const entries = ledger.entries;
  let i = entries.length;
  while (i > 0 && (entries[i - 1]?.ms ?? 0) > ms) i -= 1;
  entries.splice(i, 0, { record: parsed.data, ms });
  ledger.ids.add(parsed.data.id);
  ledger.latestMs = Math.max(ledger.latestMs ?? ms, ms);
  return ledger;
}

/** Drops entries older than the longest window. */
export function pruneLedger(ledger: TokenLedger): void {
  const floor = ledger.now() - ledgerMaxAgeMs;
  let n = 0;
  while (n < ledger.entries.length && (ledger.entries[n]?.ms ?? 0) < floor) n += 1;
  for (const e of ledger.entries.splice(0, n)) ledger.ids.delete(e.record.id);
}

/** Records placed in [fromMs, toMs). */
export function ledgerRange(ledger: TokenLedger, fromMs: number, toMs = Infinity): SpendRecord[] {
  return ledgerEntries(ledger, fromMs, toMs).map((e) => e.record);
}

/** Entries placed in [fromMs, toMs), ascending. */
export function ledgerEntries(ledger: TokenLedger, fromMs: number, toMs = Infinity): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  let lo = 0;
  let hi = ledger.entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ledger.entries[mid]?.ms ?? 0) < fromMs) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < ledger.entries.length; i += 1) {
    const e = ledger.entries[i] as LedgerEntry;
    if (e.ms >= toMs) break;
    out.push(e);
  }
  return out;
}
