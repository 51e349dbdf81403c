/**
 * RFC 3339 timestamps compared as instants (spec "Ordering and projection rules" 3): `Z` and `+00:00`,
 * other offsets and any number of fractional digits denote the same instant when they should. An instant is
 * kept as whole milliseconds since the epoch plus the nanoseconds inside that millisecond, so nanosecond
 * stamps compare exactly (a double alone cannot hold them).
 */

export interface Instant {
  /** Milliseconds since the epoch (floor). */
  readonly ms: number;
  /** Nanoseconds inside that millisecond, 0..999 999. */
  readonly ns: number;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9})\d*)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/** Parses an RFC 3339 timestamp; null when it is not one (or names an impossible date). */
export function parseInstant(text: string): Instant | null {
  // Fast path for the form `toISOString` writes (what `newEvent` stamps); the round trip refuses the
  // impossible dates Date.parse rolls over (2026-02-30).
  if (text.length === 24 && text.charCodeAt(23) === 90 /* Z */) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms) && new Date(ms).toISOString() === text) return { ms, ns: 0 };
  }
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = '', z, sign, oh = '0', om = '0'] = m;
  const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(base);
  // Date.UTC rolls 2026-02-30 over into March: refuse what does not round-trip.
  if (
    !Number.isFinite(base) ||
    check.getUTCDate() !== Number(d) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 60
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
