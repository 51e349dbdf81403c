/**
 * What an editor can check of a cron expression, a timezone and a schedule name before the node does: a
 * JSON Schema `pattern` for cron, the runtime's IANA names as an `enum` for timezones, a length bound for
 * schedule names, attached as metadata so `svc config schema` carries them. They only hint: the node's
 * own check (cron-parser, Intl, admission rule A12) decides. A cron or timezone may be a `${VAR}` reference
 * instead, so each also admits a value holding one.
 */
import { cron, MAX_SCHEDULE_NAME, nonEmpty, timezone } from './fields.js';

const ref = String.raw`.*\$\{[A-Za-z_][A-Za-z0-9_]*\}.*`;

/** `MON` → `[Mm][Oo][Nn]`: JSON Schema patterns have no case-insensitive flag. */
const anyCase = (word: string): string =>
  [...word].map((c) => `[${c.toUpperCase()}${c.toLowerCase()}]`).join('');
const names = (list: readonly string[]): string => list.map(anyCase).join('|');

const months = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const days = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/**
 * One field: a list of items, each `*`, a value or a range, with an optional `/step`; `extra` adds
 * the field's own forms (`L`, `5L`, `5#2`, `?`; cron-parser has no `W`).
 */
function field(value: string, extra: readonly string[] = []): string {
  const item = `(?:\\*|(?:${value})(?:-(?:${value}))?)(?:/\\d+)?`;
  const one = [item, ...extra].join('|');
  return `(?:${one})(?:,(?:${one}))*`;
}

const sixty = '[0-5]?\\d';
const hour = '[01]?\\d|2[0-3]';
const dom = '0?[1-9]|[12]\\d|3[01]';
const month = `0?[1-9]|1[0-2]|${names(months)}`;
const dow = `[0-7]|${names(days)}`;
const fields = [
  field(hour),
  field(dom, ['\\?', 'L(?:-\\d+)?']),
  field(month),
  field(dow, ['\\?', 'L', '[0-7]L', '[0-7]#[1-5]']),
].join('\\s+');
const macro = '@(?:yearly|annually|monthly|weekly|daily|midnight|hourly)';

/**
 * Five fields (minute hour day-of-month month day-of-week), six with seconds first, a macro, or a
 * value holding a `${VAR}`: `61 8 * * 1` and `30 9 * * MONDAY-FRI` do not match.
 */
export const cronPattern = `^\\s*(?:${macro}|(?:${field(sixty)}\\s+)?${field(sixty)}\\s+${fields}|${ref})\\s*$`;

/** The runtime's IANA names (Node lists canonical names only, without UTC). */
export function timezoneNames(): string[] {
  return [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC'])].sort();
}

/**
 * A schedule's name, with the bound admission rule A12 holds a new write to: a hint only, so a stored
 * revision with a longer name still passes the shape check.
 */
export const scheduleName = nonEmpty.meta({ maxLength: MAX_SCHEDULE_NAME });

export const scheduleCron = cron.meta({
  pattern: cronPattern,
  examples: ['0 9 * * 1-5', '*/30 * * * *', '@daily'],
});

const timezoneHint = {
  anyOf: [{ enum: timezoneNames() }, { pattern: `^${ref}$` }],
  examples: ['Europe/Berlin', 'America/New_York', 'UTC'],
  $comment: 'Older alias names (such as US/Pacific) are accepted by svc but not listed here.',
};

/** The company's timezone, with the names an editor can offer. */
export const companyTimezone = timezone.meta(timezoneHint);

/** A schedule's timezone, with the same names. */
export const scheduleTimezone = timezone.meta(timezoneHint);
