/**
 * The one rule of the `svc` client commands for a value they can judge alone (a number's range, a fixed
 * set): it is checked before anything is sent, and a value outside is a usage error (exit 2) naming the flag
 * and what it takes. Only what needs the node's state (a seat, a project, a cursor) is left to the node. The
 * numeric ranges are the node's own (`queryRanges` in schema/), so the two cannot disagree.
 */
import type { IntRange } from '../schema/index.js';
import { UsageError } from './cli-usage.js';

/**
 * `label N` (`--limit`) as sent: decimal digits within `range`, else a usage error naming the range. Also
 * where the node would clamp (`--days`): a value outside would answer another window than the one asked for.
 */
export function intFlag(label: string, raw: string | undefined, range: IntRange): string | undefined {
  if (raw === undefined) return undefined;
  // Digits only, as the node reads them: `Number` would also take `0x10`, `1e2`, ` 5` and `-0`.
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max)
    throw new UsageError(
      `${label} must be a whole number from ${range.min} to ${range.max} (got ${JSON.stringify(raw)})`,
    );
  return String(n);
}

/** `label V` (`--status`, or an argument such as `STATUS`) as sent: one of `allowed` exactly as written. */
export function oneOfFlag<T extends string>(
  label: string,
  raw: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw))
    throw new UsageError(`${label} must be one of ${allowed.join(', ')} (got ${JSON.stringify(raw)})`);
  return raw as T;
}
