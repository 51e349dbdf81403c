/**
 * Company-calendar arithmetic: the day, ISO week and month an instant falls in, in an IANA time zone,
 * and the instant a local day starts (DST-correct, via Intl; no dependency).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** A zone the runtime knows, else UTC (an unknown zone never breaks a read). */
export function safeZone(timeZone: string | null | undefined): string {
  if (!timeZone) return 'UTC';
  try {
    formatter(timeZone);
    return timeZone;
  } catch {
    return 'UTC';
  }
}

export interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

function parts(ms: number, timeZone: string): LocalDate & { hour: number; minute: number; second: number } {
  const out: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return {
    year: out['year'] ?? 1970,
    month: out['month'] ?? 1,
    day: out['day'] ?? 1,
    hour: out['hour'] ?? 0,
    minute: out['minute'] ?? 0,
    second: out['second'] ?? 0,
  };
}

export function localDate(ms: number, timeZone: string): LocalDate {
  const { year, month, day } = parts(ms, timeZone);
  return { year, month, day };
}

/** `YYYY-MM-DD`. */
export function dateKey(d: LocalDate): string {
  return `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

/** Adds days to a calendar date (no zone involved). */
export function addDays(d: LocalDate, days: number): LocalDate {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + days));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

/** The instant local midnight of `d` happens in `timeZone` (the first instant of that day). */
export function startOfLocalDay(d: LocalDate, timeZone: string): number {
  const target = Date.UTC(d.year, d.month - 1, d.day);
  let guess = target;
  // Two corrections settle the zone offset, including across a DST change.
  for (let i = 0; i < 3; i += 1) {
    const p = parts(guess, timeZone);
    const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
    const next = guess - (asUtc - target);
    if (next === guess) break;
    guess = next;
  }
  // A zone whose midnight is skipped by DST starts the day at the first instant that reads as that day.
  return guess;
}

/** Monday of the ISO week holding `d`. */
export function isoWeekStart(d: LocalDate): LocalDate {
  const weekday = new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay();
  return addDays(d, -((weekday + 6) % 7));
}

/** `YYYY-Www` ISO week label of a Monday. */
export function isoWeekLabel(monday: LocalDate): string {
  const thursday = addDays(monday, 3);
  const jan1 = Date.UTC(thursday.year, 0, 1);
  const week =
    Math.floor((Date.UTC(thursday.year, thursday.month - 1, thursday.day) - jan1) / 86_400_000 / 7) + 1;
  return `${thursday.year}-W${String(week).padStart(2, '0')}`;
}
