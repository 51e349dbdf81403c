/** Query parameter readers shared by the read answers: clamp, never refuse a number out of range. */

const DECIMAL = /^[+-]?\d+(\.\d+)?$/;

/** An integer parameter: absent or not a number reads as `fallback`; others are clamped to [min, max]. */
export function clampInt(raw: string | null | undefined, fallback: number, min: number, max: number): number {
  if (raw === null || raw === undefined) return fallback;
  // Decimal only: `Number` would also read `0x10` as 16 and `1e1` as 10, which no one writing days means.
  const text = raw.trim();
  if (!DECIMAL.test(text)) return fallback;
  const n = Number(text);
  return Math.min(max, Math.max(min, Math.trunc(n)));
}

/** An optional text filter: blank reads as none. */
export function textParam(raw: string | null | undefined): string | null {
  const v = raw?.trim() ?? '';
  return v === '' ? null : v;
}
