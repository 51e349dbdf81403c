/**
 * Resolves the schedules a company document defines into effective schedules (spec "Schedule"):
 * seat schedules (`scope_type: role`) and unit schedules (`scope_type: unit`), each with its
 * effective timezone and its runners.
 *
 * Runners are agent handles only (human seats are never executed):
 * - `each` on a seat: the seat itself. `each` on a unit: the agent seats placed in that unit (its
 *   `roles`, and root-level seats whose `unit` names it) — not the seats of its child units, which
 *   have their own schedules (ops/schedules.md says why).
 * - `lead`: the effective (possibly inherited) lead of the unit — the seat's placement for a seat
 *   schedule — when it names exactly one agent seat; else none.
 */
import type { Company } from '../company/company.schema.js';
import type { Schedule } from '../company/seat.schema.js';
import { walkCompany, type CompanyUnit, type CompanyWalk } from '../company/walk.js';
import { NOT_CRON } from '../company/fields.js';
import { listRefs, substituteRefs, type Resolver } from '../env-refs.js';
import { DEFAULT_SCHEDULE_TIMEOUT_SECONDS, ScopeType, type EffectiveSchedule } from './schedule.js';
import { cronProblem, zoneSpelling } from './time.js';

/** The company timezone when the document names none. */
export const DEFAULT_TIMEZONE = 'UTC';

export interface ResolveOptions {
  /** Answers `${VAR}` references in `cron` and `timezone` (store, then environment). */
  readonly resolve?: Resolver;
  /**
   * Whether a name's value is a secret (the secret store answered it): a text referencing one is shown as
   * written, its value only fired by. Default every name: a resolver alone does not say where it answered from.
   */
  readonly secret?: (name: string) => boolean;
}

/** A written text resolved: `value` to fire by, `shown` for answers (the written text when `hidden`). */
interface Resolved {
  readonly value: string;
  readonly shown: string;
  readonly hidden: boolean;
}

function resolveText(
  written: string,
  opts: ResolveOptions,
  spell: (v: string) => string = (v) => v,
): Resolved {
  const value = spell((opts.resolve ? substituteRefs(written, opts.resolve) : written).trim());
  const secret = opts.secret ?? (() => true);
  const hidden = opts.resolve !== undefined && listRefs(written).some(secret);
  return { value, shown: hidden ? written.trim() : value, hidden };
}

/**
 * The company timezone: `timezone` of the document (references resolved) in its IANA spelling
 * (`zoneSpelling`: the document keeps what was written), else UTC; `shown` is the written text when a
 * reference in it is a secret.
 */
export function companyZone(company: Company, opts: ResolveOptions = {}): Resolved {
  const raw = company.timezone;
  const utc = { value: DEFAULT_TIMEZONE, shown: DEFAULT_TIMEZONE, hidden: false };
  if (raw === undefined || raw.trim() === '') return utc;
  const zone = resolveText(raw, opts, zoneSpelling);
  return zone.value === '' ? utc : zone;
}

/** The company timezone to compute by (`companyZone`'s value): never for an answer, it may be a secret. */
export function companyTimezone(company: Company, opts: ResolveOptions = {}): string {
  return companyZone(company, opts).value;
}

/** Every schedule of the document, seats first then units, each in document order. */
export function resolveSchedules(company: Company | null, opts: ResolveOptions = {}): EffectiveSchedule[] {
  if (company === null) return [];
  const walk = walkCompany(company);
  const tz = companyZone(company, opts);
  const out: EffectiveSchedule[] = [];
  for (const seat of walk.seats) {
    if (seat.kind !== 'agent') continue;
    for (const schedule of seat.seat.schedules ?? []) {
      const runners = schedule.target === 'lead' ? leadOf(walk, seat.unit) : [seat.handle];
      out.push(effective(schedule, ScopeType.Role, seat.handle, runners, tz, opts));
    }
  }
  for (const unit of walk.units) {
    if (unit.name === '') continue;
    for (const schedule of unit.unit.schedules ?? []) {
      const runners = schedule.target === 'lead' ? leadOf(walk, unit) : agentMembers(walk, unit);
      out.push(effective(schedule, ScopeType.Unit, unit.name, runners, tz, opts));
    }
  }
  return out;
}

/** The effective lead of `unit` when it names exactly one seat (by handle first, else by name) and that seat is an agent. */
function leadOf(walk: CompanyWalk, unit: CompanyUnit | null): string[] {
  const ref = unit?.lead ?? null;
  if (ref === null) return [];
  const byHandle = walk.seatByHandle.get(ref);
  const found = byHandle ? [byHandle] : walk.seats.filter((s) => s.seat.name === ref);
  const lead = found.length === 1 ? found[0] : undefined;
  return lead !== undefined && lead.kind === 'agent' ? [lead.handle] : [];
}

function agentMembers(walk: CompanyWalk, unit: CompanyUnit): string[] {
  return walk.seats.filter((seat) => seat.unit === unit && seat.kind === 'agent').map((seat) => seat.handle);
}

function effective(
  schedule: Schedule,
  scopeType: ScopeType,
  scopeId: string,
  runners: string[],
  companyTz: Resolved,
  opts: ResolveOptions,
): EffectiveSchedule {
  const own = schedule.timezone !== undefined ? resolveText(schedule.timezone, opts, zoneSpelling) : null;
  const tz = own === null || own.value === '' ? companyTz : own;
  const cron = resolveText(schedule.cron, opts);
  return {
    scope_type: scopeType,
    scope_id: scopeId,
    name: schedule.name,
    cron: cron.shown,
    timezone: tz.shown,
    task: schedule.task,
    target: schedule.target ?? 'each',
    enabled: schedule.enabled ?? true,
    catchup: schedule.catchup ?? false,
    timeout_seconds: schedule.timeout_seconds ?? DEFAULT_SCHEDULE_TIMEOUT_SECONDS,
    runners,
    problem: shownProblem(cron, tz),
    ...((cron.hidden || tz.hidden) && { resolved: { cron: cron.value, timezone: tz.value } }),
  };
}

/**
 * Why the schedule cannot be scheduled, in words that quote no secret: a problem of a hidden cron or
 * timezone names its written text (the `${VAR}`), not the value, nor cron-parser's words (they may quote it).
 */
function shownProblem(cron: Resolved, tz: Resolved): string | null {
  const problem = cronProblem(cron.value, tz.value);
  if (problem === null || !(cron.hidden || tz.hidden)) return problem;
  // A timezone cannot make an expression fail: the expression alone tells whose problem it is.
  if (cronProblem(cron.value, DEFAULT_TIMEZONE) !== null)
    return cron.hidden
      ? `cron ${JSON.stringify(cron.shown)} resolves to something that is not a cron expression that ever fires (${NOT_CRON}); its value, a secret, is not shown`
      : problem;
  if (!tz.hidden) return problem;
  return `timezone ${JSON.stringify(tz.shown)} resolves to no IANA timezone (such as Europe/Berlin); its value, a secret, is not shown`;
}
