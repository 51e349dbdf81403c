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
import { substituteRefs, type Resolver } from '../env-refs.js';
import { DEFAULT_SCHEDULE_TIMEOUT_SECONDS, ScopeType, type EffectiveSchedule } from './schedule.js';
import { cronProblem, zoneSpelling } from './time.js';

/** The company timezone when the document names none. */
export const DEFAULT_TIMEZONE = 'UTC';

export interface ResolveOptions {
  /** Answers `${VAR}` references in `cron` and `timezone` (store, then environment). */
  readonly resolve?: Resolver;
}

/**
 * The company timezone: `timezone` of the document (references resolved) in its IANA spelling
 * (`zoneSpelling`: the document keeps what was written), else UTC.
 */
export function companyTimezone(company: Company, opts: ResolveOptions = {}): string {
  const raw = company.timezone;
  if (raw === undefined || raw.trim() === '') return DEFAULT_TIMEZONE;
  return zoneSpelling((opts.resolve ? substituteRefs(raw, opts.resolve) : raw).trim() || DEFAULT_TIMEZONE);
}

/** Every schedule of the document, seats first then units, each in document order. */
export function resolveSchedules(company: Company | null, opts: ResolveOptions = {}): EffectiveSchedule[] {
  if (company === null) return [];
  const walk = walkCompany(company);
  const tz = companyTimezone(company, opts);
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
  companyTz: string,
  opts: ResolveOptions,
): EffectiveSchedule {
  const sub = (text: string): string => (opts.resolve ? substituteRefs(text, opts.resolve) : text).trim();
  const own = schedule.timezone !== undefined ? sub(schedule.timezone) : '';
  const timezone = own === '' ? companyTz : zoneSpelling(own);
  const cron = sub(schedule.cron);
  return {
    scope_type: scopeType,
    scope_id: scopeId,
    name: schedule.name,
    cron,
    timezone,
    task: schedule.task,
    target: schedule.target ?? 'each',
    enabled: schedule.enabled ?? true,
    catchup: schedule.catchup ?? false,
    timeout_seconds: schedule.timeout_seconds ?? DEFAULT_SCHEDULE_TIMEOUT_SECONDS,
    runners,
    problem: cronProblem(cron, timezone),
  };
}
