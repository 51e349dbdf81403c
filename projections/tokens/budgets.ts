/**
 * `/budgets` and the budget meters: the org `token_budget` and each agent seat's `token_budget` (0 =
 * unlimited), counted per calendar month in the company timezone from spend records. A scope is refused
 * when its cap is set and its use has reached it; a seat is also refused when the org is.
 */
import type { CompanyModel } from '../org/company.model.js';
import { estimatedOf } from './token-rows.js';
import { ledgerRange, type TokenLedger } from './tokens.ledger.js';
import { addDays, localDate, startOfLocalDay } from '../time/zoned-time.js';

export interface Meter {
  /** 0 = unlimited. */
  cap: number;
  used: number;
  /** Null when unlimited. */
  remaining: number | null;
  /** used / cap, null when unlimited. */
  ratio: number | null;
  refused: boolean;
  /** Of `used`, the tokens of estimated spend records (ops/providers.md "Usage"); 0 when none. */
  estimated_tokens: number;
}

export interface BudgetWindow {
  kind: 'month';
  start: string;
  end: string;
  timezone: string;
}

export interface BudgetReport {
  window: BudgetWindow;
  org: Meter;
  seats: Array<{ handle: string; role: string; agent_id: string | null } & Meter>;
  /** `org` and `seat:<handle>` for every refused scope. */
  refused: string[];
}

export function meter(cap: number, used: number, estimated = 0): Meter {
  return {
    cap,
    used,
    remaining: cap > 0 ? Math.max(0, cap - used) : null,
    ratio: cap > 0 ? used / cap : null,
    refused: cap > 0 && used >= cap,
    estimated_tokens: estimated,
  };
}

type MonthWindow = { startMs: number; endMs: number; window: BudgetWindow };

/**
 * The last window made per zone: a month holds every read in it, and making one takes about seven
 * Intl formatToParts calls (most of what a budget read or `/agents` cost).
 */
const lastWindows = new Map<string, MonthWindow>();
const ZONES_KEPT = 16;

/** The calendar month holding `nowMs` in `timeZone`. */
export function monthWindow(nowMs: number, timeZone: string): MonthWindow {
  const last = lastWindows.get(timeZone);
  if (last !== undefined && last.startMs <= nowMs && nowMs < last.endMs) return last;
  const made = makeMonthWindow(nowMs, timeZone);
  if (lastWindows.size >= ZONES_KEPT && last === undefined) lastWindows.clear();
  lastWindows.set(timeZone, made);
  return made;
}

function makeMonthWindow(nowMs: number, timeZone: string): MonthWindow {
  const today = localDate(nowMs, timeZone);
  const first = { year: today.year, month: today.month, day: 1 };
  const next =
    today.month === 12
      ? { year: today.year + 1, month: 1, day: 1 }
      : { year: today.year, month: today.month + 1, day: 1 };
  const startMs = startOfLocalDay(first, timeZone);
  const endMs = startOfLocalDay(addDays(next, 0), timeZone);
  return {
    startMs,
    endMs,
    window: {
      kind: 'month',
      start: new Date(startMs).toISOString(),
      end: new Date(endMs).toISOString(),
      timezone: timeZone,
    },
  };
}

export function budgetReport(ledger: TokenLedger, company: CompanyModel): BudgetReport {
  const month = monthWindow(ledger.now(), company.timezone);
  const { startMs, endMs } = month;
  // Computed in the zone, shown as the company shows it (a secret `${VAR}` as written).
  const window = { ...month.window, timezone: company.shown_timezone };
  const orgSum = { used: 0, estimated: 0 };
  const bySeat = new Map<string, { used: number; estimated: number }>();
  for (const r of ledgerRange(ledger, startMs, endMs)) {
    let seat = bySeat.get(r.handle);
    if (!seat) bySeat.set(r.handle, (seat = { used: 0, estimated: 0 }));
    for (const sum of [orgSum, seat]) {
      sum.used += r.total_tokens;
      sum.estimated += estimatedOf(r);
    }
  }
  const org = meter(company.token_budget, orgSum.used, orgSum.estimated);
  const seats = company.seats
    .filter((s) => s.kind === 'agent')
    .map((s) => ({
      handle: s.handle,
      role: s.role,
      agent_id: s.agent_id,
      ...meter(s.token_budget, bySeat.get(s.handle)?.used ?? 0, bySeat.get(s.handle)?.estimated ?? 0),
    }));
  const refused = [
    ...(org.refused ? ['org'] : []),
    ...seats.filter((s) => s.refused).map((s) => `seat:${s.handle}`),
  ];
  return { window, org, seats, refused };
}

/** The `budget` snapshot section: the org meter, or null before any node reported spend. */
export function orgBudgetMeter(
  ledger: TokenLedger,
  company: CompanyModel,
): (Meter & { window: BudgetWindow }) | null {
  if (!ledger.reported) return null;
  const report = budgetReport(ledger, company);
  return { ...report.org, window: report.window };
}
