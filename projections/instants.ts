/**
 * Instants compared across encodings (spec projection rule 3): `2026-01-01T01:00:00+01:00`,
 * `2026-01-01T00:00:00Z`, `2026-01-01 00:00:00.000000z` and an epoch number all name one instant. Strings
 * are never compared as strings. Fractions keep microseconds (a double holds them at today's epoch).
 */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/** Milliseconds since the epoch (with a sub-millisecond fraction), or null when the value names no instant. */
export function instantMs(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? epochNumber(value) : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^\d{9,}(\.\d+)?$/.test(text)) return epochNumber(Number(text));
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const whole = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(whole)) return null;
  // Date.UTC rolls over out-of-range fields (Feb 30 -> Mar 2); an impossible date is not an instant.
  const check = new Date(whole);
  if (check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1) return null;
  const fraction = frac ? Number(`0.${frac.slice(0, 9)}`) * 1000 : 0;
  const offset = z ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  return whole + fraction - offset;
}

/** Epoch numbers: seconds below 1e11 (before year 5138), milliseconds above. */
function epochNumber(n: number): number {
  return Math.abs(n) < 1e11 ? n * 1000 : n;
}

/** Orders two stamps as instants; an unparseable one sorts before every parseable one. */
export function compareInstants(a: unknown, b: unknown): number {
  const x = instantMs(a);
  const y = instantMs(b);
  if (x === null || y === null) return x === y ? 0 : x === null ? -1 : 1;
  return x - y;
}

/** Canonical RFC 3339 (UTC, milliseconds) of a stamp, or the stamp itself when it names no instant. */
export function canonicalInstant(value: string): string {
  const ms = instantMs(value);
  return ms === null ? value : new Date(Math.floor(ms)).toISOString();
}

/**
 * Gate for projection rule 3: may a change stamped `incoming` replace state stamped `current`?
 * Equal instants apply (a later message at the same instant is the newer one in stream order); an
 * unparseable stamp applies only where nothing was stamped yet.
 */
export function isNotOlder(incoming: number | null, current: number | null | undefined): boolean {
  if (current === undefined || current === null) return true;
  if (incoming === null) return false;
  return incoming >= current;
}
