/**
 * Schedule arithmetic (spec "Schedule"): fire times of a cron expression in an IANA timezone, the
 * period around a firing, and the catchup window. Pure: every function takes the instant it reasons
 * about, so the scheduler actor and the `/schedules` read answer agree and tests never wait.
 *
 * DST follows cron-parser (tested in test/schema/schedule-time.unit.test.ts): a wall time the spring
 * gap skips fires once, shifted forward by the gap; a wall time the autumn overlap repeats fires
 * once (its first occurrence); interval fields (`0 * * * *`) keep firing every real hour.
 */
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { isCron, NOT_CRON } from '../company/fields.js';
import { ZONE_ALIASES } from './zone-aliases.js';

/** The catchup window is half the period, clamped to 2 min .. 2 h (issue #8). */
export const CATCHUP_MIN_MS = 2 * 60_000;
export const CATCHUP_MAX_MS = 2 * 3_600_000;

/** Why an expression or timezone cannot be scheduled; the message is safe to show. */
export class ScheduleTimeError extends Error {
  override readonly name = 'ScheduleTimeError';
}

/** Answers of `isKnownTimezone`: asking Intl builds a formatter, and a 500-seat apply asked thousands of times. */
const knownZones = new Map<string, boolean>();

/** True for an IANA timezone name this runtime knows. */
export function isKnownTimezone(tz: string): boolean {
  const known = knownZones.get(tz);
  if (known !== undefined) return known;
  let answer = tz.trim() !== '';
  if (answer) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
    } catch {
      answer = false;
    }
  }
  // Bounded: names come from documents, and a flood of distinct ones must not grow memory.
  if (knownZones.size >= 1_000) knownZones.clear();
  knownZones.set(tz, answer);
  return answer;
}

/** Answers of `zoneSpelling`, bounded as `knownZones` is. */
const spellings = new Map<string, string>();

/** Lower-cased alias -> its IANA spelling, for the aliases this runtime accepts; built on first use. */
let aliasSpellings: ReadonlyMap<string, string> | null = null;

const aliasSpelling = (tz: string): string | undefined => {
  aliasSpellings ??= new Map(
    ZONE_ALIASES.filter((alias) => isKnownTimezone(alias)).map((alias) => [alias.toLowerCase(), alias]),
  );
  return aliasSpellings.get(tz.toLowerCase());
};

/**
 * The IANA spelling of a zone name written in another case (`america/new_york` → `America/New_York`,
 * `us/pacific` → `US/Pacific`), for display and firing; any other name as given. Intl matches zone names
 * without regard to case, so this changes no firing. A canonical zone's spelling is the runtime's resolved id;
 * an alias resolves to its canonical zone (sometimes the older name: ICU reads `Asia/Kolkata` as
 * `Asia/Calcutta`), so an alias keeps its own name, spelled from the tz database's list (zone-aliases.ts).
 */
export function zoneSpelling(tz: string): string {
  const known = spellings.get(tz);
  if (known !== undefined) return known;
  let answer = tz;
  if (isKnownTimezone(tz)) {
    const canonical = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    answer = canonical.toLowerCase() === tz.toLowerCase() ? canonical : (aliasSpelling(tz) ?? tz);
  }
  if (spellings.size >= 1_000) spellings.clear();
  spellings.set(tz, answer);
  return answer;
}

/** Macros the cron grammar accepts (schema/company/fields.ts) that cron-parser does not know, by their equivalent. */
const MACRO_ALIASES: Readonly<Record<string, string>> = { '@midnight': '@daily' };

/** `until` ends the iteration (it throws past it), so a look for a fire time before it stops there. */
function expression(cron: string, tz: string, from: Date, until?: Date): CronExpression {
  if (!isKnownTimezone(tz)) throw new ScheduleTimeError(`unknown timezone "${tz}"`);
  const text = cron.trim();
  try {
    return CronExpressionParser.parse(MACRO_ALIASES[text] ?? text, { tz, currentDate: from, endDate: until });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ScheduleTimeError(`cron "${cron}" cannot be scheduled: ${why}`, { cause: error });
  }
}

/** Null when the expression and timezone can be scheduled, else the reason. */
export function cronProblem(cron: string, tz: string): string | null {
  // cron-parser reads an empty expression as every minute: a `${VAR}` resolving to nothing must not.
  if (!isCron(cron)) return `cron ${JSON.stringify(cron)} is ${NOT_CRON}`;
  try {
    // Parsing alone accepts dates that never occur (`0 0 31 2 *`): ask for one firing as well.
    expression(cron, tz, new Date(0)).next();
    return null;
  } catch (error) {
    if (error instanceof ScheduleTimeError) return yearProblem(cron) ?? error.message;
    return `cron "${cron}" never fires`;
  }
}

/**
 * A sixth field written as a year (`0 0 1 1 * 2027`, as some cron dialects have it) is read here as the day
 * of week, seconds coming first, and cron-parser's own answer ("expected range 0-7") does not say so.
 */
function yearProblem(cron: string): string | null {
  const fields = cron.trim().split(/\s+/);
  const last = fields[5];
  if (fields.length !== 6 || last === undefined || !/\d{4}/.test(last)) return null;
  return `cron "${cron}" cannot be scheduled: a sixth field is not a year: six fields read as second, minute, hour, day of month, month, day of week, so "${last}" is a day of week (0-7); write the five fields without a year`;
}

/** The fields of a 5-field expression with their ranges; a 6-field one has `second` (0-59) first. */
const CRON_FIELDS: ReadonlyArray<readonly [string, number, number]> = [
  ['minute', 0, 59],
  ['hour', 0, 23],
  ['day of month', 1, 31],
  ['month', 1, 12],
  ['day of week', 0, 7],
];

/**
 * Null unless a step is wider than its field's range (`*\/60` minutes, `*\/13` months), which cron-parser
 * accepts and reads as the range's first value alone: `*\/60 * * * *` fires hourly, `0 0 * *\/13 *` every day
 * of January, never what was meant. A write refuses it (admission rule A6), as cronie does.
 */
export function cronStepProblem(cron: string): string | null {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return null; // a macro
  const named = fields.length === 6 ? [['second', 0, 59] as const, ...CRON_FIELDS] : CRON_FIELDS;
  for (const [i, field] of fields.entries()) {
    const [name, low, high] = named[i]!;
    for (const part of field.split(',')) {
      const step = /\/(\d+)$/.exec(part)?.[1];
      if (step !== undefined && Number(step) > high)
        return `cron "${cron}" steps by ${step} in the ${name} field (${low}-${high}), wider than the field: it would fire once per larger unit, not every ${step}`;
    }
  }
  return null;
}

/**
 * cron-parser's iteration depends on where it starts around a DST change: started after a spring gap it
 * does not yield the firing the gap shifts; started between the two occurrences of a repeated wall time
 * it yields the second. And it cannot always step backwards over a change (a gap at midnight,
 * America/Santiago: each failing `prev()` runs into its loop limit, half a second). So every answer here
 * comes from one canonical sequence, walked forwards only: from a calm instant, one with no offset change
 * within `SETTLED_MS` either side, where cron-parser is exact and whose walk then carries its own DST
 * state through the next change. Ask at any instant, the fire times are the same.
 */
function calm(tz: string, ms: number): boolean {
  const offset = offsetAt(tz, ms);
  return offset === offsetAt(tz, ms - SETTLED_MS) && offset === offsetAt(tz, ms + SETTLED_MS);
}

/** The latest calm instant at or before `ms`: changes lie months apart, so two steps back pass one. */
function calmBefore(tz: string, ms: number): number {
  let start = ms;
  for (let steps = 0; steps < CALM_STEPS && !calm(tz, start); steps++) start -= SETTLED_MS;
  return start;
}

/** Longer than any DST shift in the tz database (Antarctica/Troll moves two hours). */
const SETTLED_MS = 3 * 3_600_000;
/** Steps back to a calm instant; a zone with changes closer together than this (none today) stays approximate. */
const CALM_STEPS = 4;

/** Offset formatters by zone, bounded as `knownZones` is. */
const offsetFormats = new Map<string, Intl.DateTimeFormat>();

function offsetAt(tz: string, at: number): string {
  let format = offsetFormats.get(tz);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
    if (offsetFormats.size >= 1_000) offsetFormats.clear();
    offsetFormats.set(tz, format);
  }
  return format.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? '';
}

/** One step forwards; null when the expression has no more dates. Never `prev()`: see `calm`. */
function step(it: CronExpression): Date | null {
  try {
    return it.next().toDate();
  } catch {
    return null;
  }
}

/** Bounds every walk: a timezone cron-parser mishandles must not spin a caller forever. */
const MAX_STEPS = 1000;

/**
 * Answers remembered by (expression, zone, instant, count): an apply plans every schedule of a company at one
 * instant, and many share an expression (`0 9 * * 1-5`), so each is walked once. Bounded like the zones.
 */
const remembered = new Map<string, readonly number[]>();
const REMEMBERED_MAX = 1_000;

/** The first `count` fire times strictly after `after` (fewer when the expression runs out). */
export function nextFireTimes(cron: string, tz: string, after: Date, count: number): Date[] {
  const key = `${cron}\u0000${tz}\u0000${after.getTime()}\u0000${count}`;
  let times = remembered.get(key);
  if (times === undefined) {
    times = walkForward(cron, tz, after, count).map((d) => d.getTime());
    if (remembered.size >= REMEMBERED_MAX) remembered.clear();
    remembered.set(key, times);
  }
  return times.map((t) => new Date(t));
}

function walkForward(cron: string, tz: string, after: Date, count: number): Date[] {
  const it = expression(cron, tz, after);
  it.reset(new Date(calmBefore(tz, after.getTime()) - 1));
  const out: Date[] = [];
  let passed = 0;
  for (let steps = 0; out.length < count && steps < MAX_STEPS + count; steps++) {
    const next = step(it);
    if (next === null) break;
    if (next.getTime() <= after.getTime()) {
      // Hundreds of fire times between the calm start and `after` (a firing every few seconds): go on from
      // `after` itself, approximate within 3 h of a change.
      if (++passed === MAX_STEPS / 2) it.reset(after);
      continue;
    }
    const last = out[out.length - 1];
    if (next.getTime() > (last ?? after).getTime()) out.push(next);
  }
  return out;
}

/**
 * The first fire time strictly after `after`, or null when there is none. Where cron-parser cannot
 * walk through a DST change (half-hour shifts such as Australia/Lord_Howe), it resumes past it
 * rather than let the schedule stop for good.
 */
export function nextFireTime(cron: string, tz: string, after: Date): Date | null {
  for (const skipHours of [0, 1, 3, 25]) {
    const from = new Date(after.getTime() + skipHours * 3_600_000);
    const next = nextFireTimes(cron, tz, from, 1)[0];
    if (next !== undefined) return next;
  }
  return null;
}

/** The latest fire time at or before `at`, or null when there is none. */
export function latestFireTime(cron: string, tz: string, at: Date): Date | null {
  const it = expression(cron, tz, at, at);
  const atMs = at.getTime();
  const firesBy = (start: number): boolean => {
    it.reset(new Date(start - 1));
    const first = step(it);
    return first !== null && first.getTime() <= atMs;
  };
  // Widen the look back until a fire time lies in it (`hi` is a start from which none does)...
  let lo: number | null = null;
  let hi = atMs + 1;
  for (let back = 0; back <= LOOK_BACK_MAX_MS; back = Math.max(MIN_MS, back * 2)) {
    const start = calmBefore(tz, atMs - back);
    if (firesBy(start)) {
      lo = start;
      break;
    }
    hi = Math.min(hi, start);
  }
  if (lo === null) return null;
  // ...then narrow it, so the walk from its start passes a fire time or two (near a change, a few hours' worth).
  while (hi - lo > 1_000) {
    const mid = calmBefore(tz, Math.floor((lo + hi) / 2));
    if (mid <= lo) break;
    if (firesBy(mid)) lo = mid;
    else hi = mid;
  }
  it.reset(new Date(lo - 1));
  let latest: Date | null = null;
  for (let steps = 0; steps < MAX_STEPS + 100; steps++) {
    // Over a thousand fire times in the hours around a change (a firing every few seconds): go on from the
    // last minute, approximate within 3 h of the change.
    if (steps === MAX_STEPS) it.reset(new Date(Math.max(latest?.getTime() ?? lo, atMs - MIN_MS)));
    const next = step(it);
    if (next === null || next.getTime() > atMs) break;
    if (latest === null || next.getTime() > latest.getTime()) latest = next;
  }
  return latest;
}

/** How far back a latest fire time is looked for: past the eight years between some February 29ths. */
const LOOK_BACK_MAX_MS = 16 * 366 * 86_400_000;
const MIN_MS = 60_000;

/**
 * The period a firing owns: from `fireTime` to the next fire time after it. Null when nothing
 * follows (a date that never comes again), which the catchup window reads as the longest period.
 */
export function periodAfter(cron: string, tz: string, fireTime: Date): number | null {
  const next = nextFireTime(cron, tz, fireTime);
  return next === null ? null : next.getTime() - fireTime.getTime();
}

/** Half the period, clamped to 2 min .. 2 h. */
export function catchupWindowMs(periodMs: number | null): number {
  if (periodMs === null) return CATCHUP_MAX_MS;
  return Math.min(CATCHUP_MAX_MS, Math.max(CATCHUP_MIN_MS, Math.floor(periodMs / 2)));
}

export interface MissedFiring {
  /** The most recent fire time after `since` and at or before `now`. */
  readonly scheduledAt: Date;
  /** Whether `now` is still inside that firing's catchup window. */
  readonly withinWindow: boolean;
  readonly windowMs: number;
}

/**
 * The most recent firing nobody ran: the latest fire time in (`since`, `now`]. `since` is the instant
 * from which firings were owed: the last instant a scheduler is known to have been running, or when
 * the schedule's timing was planned if that came later; null (never ran) means nothing was missed.
 */
export function missedFiring(cron: string, tz: string, since: Date | null, now: Date): MissedFiring | null {
  if (since === null) return null;
  const latest = latestFireTime(cron, tz, now);
  if (latest === null || latest.getTime() <= since.getTime()) return null;
  const windowMs = catchupWindowMs(periodAfter(cron, tz, latest));
  return { scheduledAt: latest, withinWindow: now.getTime() - latest.getTime() <= windowMs, windowMs };
}
