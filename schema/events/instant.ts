/**
 * RFC 3339 timestamps compared as instants (spec "Ordering and projection rules" 3): `Z` and `+00:00`,
 * other offsets and any number of fractional digits denote the same instant when they should. An instant is
 * kept as whole milliseconds since the epoch plus the nanoseconds inside that millisecond, so nanosecond
 * stamps compare exactly (a double alone cannot hold them). The read models use the looser `instantMs` below,
 * which also takes epoch numbers and answers one double.
 */

export interface Instant {
  /** Milliseconds since the epoch (floor). */
  readonly ms: number;
  /** Nanoseconds inside that millisecond, 0..999 999. */
  readonly ns: number;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9})\d*)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DDTHH:MM:SS.mmmZ` without a regular expression; null when anything is off (the slow path decides). */
function parseIsoZ(t: string): Instant | null {
  const d = (i: number): number => {
    const c = t.charCodeAt(i) - 48;
    return c >= 0 && c <= 9 ? c : NaN;
  };
  if (t[4] !== '-' || t[7] !== '-' || t[10] !== 'T' || t[13] !== ':' || t[16] !== ':' || t[19] !== '.')
    return null;
  const y = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3);
  const mo = d(5) * 10 + d(6);
  const day = d(8) * 10 + d(9);
  const h = d(11) * 10 + d(12);
  const mi = d(14) * 10 + d(15);
  const sec = d(17) * 10 + d(18);
  const milli = d(20) * 100 + d(21) * 10 + d(22);
  if (!(mo >= 1 && mo <= 12 && h <= 23 && mi <= 59 && sec <= 59 && milli >= 0)) return null;
  const leap = mo === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 1 : 0;
  if (!(day >= 1 && day <= (monthDays[mo - 1] as number) + leap)) return null;
  const ms = Date.UTC(y, mo - 1, day, h, mi, sec, milli);
  // Date.UTC maps years 0..99 onto 1900..1999: leave those to the general path.
  return y >= 100 && Number.isFinite(ms) ? { ms, ns: 0 } : null;
}

/** Parses an RFC 3339 timestamp; null when it is not one (or names an impossible date). */
export function parseInstant(text: string): Instant | null {
  // Fast path for the form `toISOString` writes (what `newEvent` stamps), digit by digit.
  if (text.length === 24 && text.charCodeAt(23) === 90 /* Z */) {
    const fast = parseIsoZ(text);
    if (fast !== null) return fast;
  }
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = '', z, sign, oh = '0', om = '0'] = m;
  const check = new Date(Date.UTC(2000, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  // setUTCFullYear, because Date.UTC reads years 0..99 as 1900..1999.
  const base = check.setUTCFullYear(Number(y));
  // Date.UTC rolls 2026-02-30 over into March: refuse what does not round-trip.
  if (
    !Number.isFinite(base) ||
    check.getUTCDate() !== Number(d) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 60 ||
    Number(oh) > 23 ||
    Number(om) > 59
  )
    return null;
  const offsetMin = z ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const nanos = Number(frac.padEnd(9, '0'));
  const ms = base - offsetMin * 60_000 + Math.floor(nanos / 1_000_000);
  return { ms, ns: nanos % 1_000_000 };
}

/** Negative, zero or positive as `a` is before, at or after `b`. */
export function compareInstants(a: Instant, b: Instant): number {
  return a.ms !== b.ms ? a.ms - b.ms : a.ns - b.ns;
}

/** The cursor form of an instant: RFC 3339 UTC with nine fractional digits (exact, whatever the row's encoding). */
export function formatInstant(i: Instant): string {
  return new Date(i.ms).toISOString().replace(/Z$/, `${String(i.ns).padStart(6, '0')}Z`);
}

/** What `formatInstant` writes for an instant past 9999-12-31 (a stamp like `9999-12-31T23:59:59-01:00`). */
const EXPANDED = /^\+(\d{6})(-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.)(\d{3})(\d{6})Z$/;

/**
 * Reads a cursor's `before_time`: RFC 3339, or the expanded year `formatInstant` writes past 9999 (which
 * RFC 3339 cannot say in UTC), so every `next` a page gives is accepted back.
 */
export function parseCursorInstant(text: string): Instant | null {
  const exact = parseInstant(text);
  if (exact !== null) return exact;
  const m = EXPANDED.exec(text);
  if (!m) return null;
  const [, year, rest, milli, micro] = m;
  const ms = Date.parse(`+${year}${rest}${milli}Z`);
  return Number.isFinite(ms) ? { ms, ns: Number(micro) } : null;
}

/** The instant of a Date (no sub-millisecond part). */
export function instantOf(date: Date): Instant {
  return { ms: date.getTime(), ns: 0 };
}

/** True when `candidate` is strictly newer than `current` (a null current is always older). */
export function isNewer(candidate: string, current: string | null): boolean {
  const a = parseInstant(candidate);
  if (a === null) return false;
  const b = current === null ? null : parseInstant(current);
  return b === null || compareInstants(a, b) > 0;
}

const EPOCH_DIGITS = /^\d{9,}(\.\d+)?$/;

/** Epoch numbers: seconds below 1e11 (before year 5138), milliseconds above. */
function epochMs(n: number): number {
  return Math.abs(n) < 1e11 ? n * 1000 : n;
}

function msOf(instant: Instant | null): number | null {
  return instant === null ? null : instant.ms + instant.ns / 1_000_000;
}

/**
 * Milliseconds since the epoch (with a sub-millisecond fraction) of a stamp as the read models meet it, or null
 * when it names no instant: an RFC 3339 string (spaces around it and ISO 8601's decimal comma tolerated), or an
 * epoch number or digit string. Fractions keep microseconds (a double holds them at today's epoch).
 * @example instantMs('2026-01-01T01:00:00+01:00') === instantMs(1767225600) // true
 */
export function instantMs(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? epochMs(value) : null;
  if (typeof value !== 'string') return null;
  // Stamps as `newEvent` writes them take parseInstant's fast path; only the rest pay for the looser forms.
  const exact = parseInstant(value);
  if (exact !== null) return msOf(exact);
  const text = value.trim();
  if (EPOCH_DIGITS.test(text)) return epochMs(Number(text));
  if (text.charCodeAt(19) === 44 /* , */) return msOf(parseInstant(`${text.slice(0, 19)}.${text.slice(20)}`));
  return text === value ? null : msOf(parseInstant(text));
}

/** Orders two stamps as instants (see `instantMs`); an unparseable one sorts before every parseable one. */
export function compareStamps(a: unknown, b: unknown): number {
  return compareInstantMs(instantMs(a), instantMs(b));
}

/** `compareStamps` of stamps already read with `instantMs` (a sort reads each stamp once, not per comparison). */
export function compareInstantMs(x: number | null, y: number | null): number {
  if (x === null || y === null) return x === y ? 0 : x === null ? -1 : 1;
  return x - y;
}

/** Canonical RFC 3339 (UTC, milliseconds) of a stamp, or the stamp itself when it names no instant. */
export function canonicalInstant(value: string): string {
  const ms = instantMs(value);
  return ms === null ? value : new Date(Math.floor(ms)).toISOString();
}

/**
 * Gate for projection rule 3: may a change stamped `incoming` replace state stamped `current` (both from
 * `instantMs`)? Equal instants apply (a later message at the same instant is the newer one in stream order); an
 * unparseable stamp applies only where nothing was stamped yet.
 */
export function isNotOlder(incoming: number | null, current: number | null | undefined): boolean {
  if (current === undefined || current === null) return true;
  if (incoming === null) return false;
  return incoming >= current;
}
