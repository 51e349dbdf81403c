/** Query parameter readers shared by the read answers: clamp, never refuse a number out of range. */
import { QueryError } from './query-error.js';

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

/**
 * The seat filter of the event reads, `agent_id` or its other name `seat`: blank reads as absent, and the
 * handle is compared lowercased (handles are `[a-z0-9-]`, so `seat=Ada` means `ada`, not an empty read). Two
 * different seats are refused rather than one silently dropped, which would widen or change the read.
 */
export function seatParam(params: URLSearchParams): string | undefined {
  const named: string[] = [];
  for (const name of ['agent_id', 'seat']) {
    const all = params.getAll(name);
    if (all.length > 1)
      throw new QueryError('bad_params', `${name} is given more than once`, `Give ${name} once.`);
    const value = all[0]?.trim().toLowerCase();
    if (value) named.push(value);
  }
  if (named.length === 2 && named[0] !== named[1])
    throw new QueryError(
      'bad_params',
      'agent_id and seat name the same filter: give one of them',
      'Drop `seat` or `agent_id`; they are one filter under two names.',
    );
  return named[0];
}
