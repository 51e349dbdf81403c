/** Query parameter readers shared by the read answers: clamp, never refuse a number out of range. */

/** An integer parameter: absent or not a number reads as `fallback`; others are clamped to [min, max]. */
export function clampInt(raw: string | null | undefined, fallback: number, min: number, max: number): number {
  if (raw === null || raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(n)));
}

/** An optional text filter: blank reads as none. */
export function textParam(raw: string | null | undefined): string | null {
  const v = raw?.trim() ?? '';
  return v === '' ? null : v;
}
