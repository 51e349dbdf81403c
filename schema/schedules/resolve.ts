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
import { leadSeat } from '../company/derived.js';
import { Schedule } from '../company/seat.schema.js';
import { isRecord, walkDocument, type SeatNode, type UnitNode, type Walk } from '../company/walk.js';
import { substituteRefs, type Resolver } from '../env-refs.js';
import { DEFAULT_SCHEDULE_TIMEOUT_SECONDS, ScopeType, type EffectiveSchedule } from './schedule.js';
import { cronProblem } from './time.js';

/** The company timezone when the document names none. */
export const DEFAULT_TIMEZONE = 'UTC';

export interface ResolveOptions {
  /** Answers `${VAR}` references in `cron` and `timezone` (store, then environment). */
  readonly resolve?: Resolver;
}

/** The company timezone: `timezone` of the document (references resolved), else UTC. */
export function companyTimezone(document: unknown, opts: ResolveOptions = {}): string {
  const raw = isRecord(document) ? document['timezone'] : undefined;
  if (typeof raw !== 'string' || raw.trim() === '') return DEFAULT_TIMEZONE;
  return (opts.resolve ? substituteRefs(raw, opts.resolve) : raw).trim() || DEFAULT_TIMEZONE;
}

/** Every schedule of the document, seats first then units, each in document order. */
export function resolveSchedules(document: unknown, opts: ResolveOptions = {}): EffectiveSchedule[] {
  if (!isRecord(document)) return [];
  const walk = walkDocument(document);
  const tz = companyTimezone(document, opts);
  const out: EffectiveSchedule[] = [];
  for (const seat of walk.seats) {
    if (seat.kind !== 'agent' || seat.handle === null) continue;
    const handle = seat.handle;
    for (const schedule of parsedList(seat.raw['schedules'])) {
      const runners = schedule.target === 'lead' ? leadOf(walk, seat.placement) : [handle];
      out.push(effective(schedule, ScopeType.Role, handle, runners, tz, opts));
    }
  }
  for (const unit of walk.units) {
    if (unit.name === null) continue;
    for (const schedule of parsedList(unit.raw['schedules'])) {
      const runners = schedule.target === 'lead' ? leadOf(walk, unit) : agentMembers(walk, unit);
      out.push(effective(schedule, ScopeType.Unit, unit.name, runners, tz, opts));
    }
  }
  return out;
}

/** Entries that parse as a schedule; a stored document was validated, so others are skipped. */
function parsedList(raw: unknown): Schedule[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((entry) => {
    const parsed = Schedule.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

function leadOf(walk: Walk, unit: UnitNode | null): string[] {
  const lead = leadSeat(walk, unit?.lead ?? null);
  return lead !== null && lead.kind === 'agent' && lead.handle !== null ? [lead.handle] : [];
}

function agentMembers(walk: Walk, unit: UnitNode): string[] {
  const isMember = (seat: SeatNode): boolean =>
    seat.placement === unit && seat.kind === 'agent' && seat.handle !== null;
  return [...new Set(walk.seats.filter(isMember).map((seat) => seat.handle as string))];
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
  const timezone = schedule.timezone !== undefined ? sub(schedule.timezone) || companyTz : companyTz;
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
