/**
 * The one rule of the `svc` client commands for a value they can judge alone (a number's range, a fixed
 * set, a text grammar): it is checked before anything is sent, and a value outside is a usage error (exit 2)
 * naming the flag and what it takes. Only what needs the node's state (a seat, a project, a cursor) is left to
 * the node. The numeric ranges and the grammars are the node's own (`queryRanges` and `text-grammars` in
 * schema/), so the two cannot disagree.
 */
import {
  isOpId,
  isTitle,
  OP_ID_MAX_BYTES,
  PERSON_HANDLE,
  SEARCH_TEXT_MAX,
  type IntRange,
} from '../schema/index.js';
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

/**
 * `label V` as sent when `fits` it; else a usage error saying what it takes in the node's own words (`takes`,
 * as the route's refusal words its parameter), so the user meets the same rule before anything is sent.
 */
export function shapeFlag(
  label: string,
  raw: string | undefined,
  fits: (value: string) => boolean,
  takes: string,
): string | undefined {
  if (raw === undefined) return undefined;
  // A long value is counted, not echoed: the message stays one line.
  const got = raw.length > 80 ? `${raw.length} characters` : JSON.stringify(raw);
  if (!fits(raw)) throw new UsageError(`${label} must be ${takes} (got ${got})`);
  return raw;
}

/** `--op-id X` of a write: the route's grammar (`op_id_invalid` otherwise). */
export const opIdFlag = (raw: string | undefined): string | undefined =>
  shapeFlag('--op-id', raw, isOpId, `1 to ${OP_ID_MAX_BYTES} bytes of visible ASCII`);

/** A person named by a flag (`--handle`, `--assignee`): a seat handle in any case, as the work routes read it. */
export const handleFlag = (label: string, raw: string | undefined): string | undefined =>
  shapeFlag(
    label,
    raw,
    (value) => PERSON_HANDLE.test(value.toLowerCase()),
    'a seat handle ([a-z0-9][a-z0-9-]*, at most 64 characters)',
  );

/** `--q WORDS` of a read: at most the routes' search cap, counted as code points as the routes count. */
export const searchFlag = (label: string, raw: string | undefined): string | undefined =>
  shapeFlag(label, raw, (q) => [...q].length <= SEARCH_TEXT_MAX, `at most ${SEARCH_TEXT_MAX} characters`);

/** A flag whose empty value would be dropped and read as absent (`--seat "$UNSET"` listing every seat). */
export const nonEmptyFlag = (label: string, raw: string | undefined, takes: string): string | undefined =>
  shapeFlag(label, raw, (value) => value !== '', takes);

/** `--title T` of a create: one line, 1 to `max` characters once trimmed, one visible, as the route reads it. */
export const titleFlag = (raw: string | undefined, max: number): string | undefined =>
  shapeFlag(
    '--title',
    raw,
    (title) => isTitle(title, max),
    `one line of 1 to ${max} characters once trimmed (no control characters, U+2028/U+2029 line breaks or lone surrogates; one visible character at least)`,
  );
