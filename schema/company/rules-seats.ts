/** Seat rules: what each kind may carry, human contact identities, providers, schedules. */
import { cutForQuote } from '../text-grammars.js';
import { leadSeat } from './derived.js';
import { hasRef } from './fields.js';
import { ProblemKind, type Segment } from './problems.js';
import { asList, asString, type RuleContext } from './rule-context.js';
import {
  ContactField,
  humanOnlySeatFields,
  lowercasedContacts,
  runtimeOnlySeatFields,
} from './seat.schema.js';
import { isRecord, type UnitNode } from './walk.js';

const contactFields: readonly string[] = Object.values(ContactField);

/** Human seats carry no runtime-only field and declare a contact; agent seats carry no human field. */
export function seatKindRules(ctx: RuleContext): void {
  for (const seat of ctx.walk.seats) {
    const present = (field: string): boolean => seat.raw[field] !== undefined;
    if (seat.kind === 'human') {
      for (const field of runtimeOnlySeatFields.filter(present)) {
        const why = field === 'schedules' ? 'human seats cannot define schedules' : 'runtime-only field';
        ctx.problem([...seat.segments, field], ProblemKind.Conflict, `not allowed on a human seat (${why})`);
      }
      const contact = seat.raw['contact'];
      const declared = isRecord(contact) && contactFields.some((f) => contact[f] !== undefined);
      if (!declared) {
        ctx.problem(
          [...seat.segments, 'contact'],
          ProblemKind.Missing,
          `a human seat needs at least one contact identity (contact.${contactFields.join(', contact.')})`,
        );
      }
    } else {
      for (const field of humanOnlySeatFields.filter(present)) {
        ctx.problem(
          [...seat.segments, field],
          ProblemKind.Conflict,
          'only a human seat (kind: human) carries this field',
        );
      }
    }
  }
}

/** One contact identity routes to one person: the same id on two human seats is ambiguous. */
export function contactRules(ctx: RuleContext): void {
  const seen = new Map<string, string>();
  for (const seat of ctx.walk.seats) {
    const contact = seat.raw['contact'];
    if (seat.kind !== 'human' || !isRecord(contact)) continue;
    for (const field of contactFields) {
      const raw = contact[field];
      if (typeof raw !== 'string' || raw.trim() === '') continue;
      const value = lowercasedContacts.has(field) && !hasRef(raw) ? raw.trim().toLowerCase() : raw.trim();
      const key = `${field}\u0000${value}`;
      const holder = seen.get(key);
      if (holder === undefined) seen.set(key, seat.handle ?? '(unnamed)');
      else {
        ctx.problem(
          [...seat.segments, 'contact', field],
          ProblemKind.Conflict,
          `the same ${field} is already declared by seat ${cutForQuote(holder)}`,
        );
      }
    }
  }
}

/** A pinned `llm` names a provider of `providers.llm`. */
export function seatProviderRules(ctx: RuleContext): void {
  const providers = isRecord(ctx.doc['providers']) ? ctx.doc['providers']['llm'] : undefined;
  const keys = new Set(isRecord(providers) ? Object.keys(providers) : []);
  for (const seat of ctx.walk.seats) {
    const llm = asString(seat.raw['llm']);
    if (llm !== null && !keys.has(llm)) {
      ctx.problem([...seat.segments, 'llm'], ProblemKind.UnknownValue, 'names no provider in providers.llm');
    }
  }
}

export interface ScheduleScope {
  readonly segments: Segment[];
  readonly list: unknown[];
  /** The unit whose effective lead `target: lead` runs on. */
  readonly leadUnit: UnitNode | null;
}

/** Every place schedules are written: agent seats (lead = their unit's lead) and units. */
export function scheduleScopes(ctx: RuleContext): ScheduleScope[] {
  const seats = ctx.walk.seats
    .filter((s) => s.kind === 'agent')
    .map((s) => ({
      segments: [...s.segments, 'schedules'],
      list: asList(s.raw['schedules']),
      leadUnit: s.placement,
    }));
  const units = ctx.walk.units.map((u) => ({
    segments: [...u.segments, 'schedules'],
    list: asList(u.raw['schedules']),
    leadUnit: u,
  }));
  return [...seats, ...units].filter((scope) => scope.list.length > 0);
}

/** `target: lead` runs on the lead, which must be an agent; names are unique within a scope. */
export function scheduleRules(ctx: RuleContext): void {
  for (const scope of scheduleScopes(ctx)) {
    const names = new Set<string>();
    scope.list.forEach((schedule, i) => {
      if (!isRecord(schedule)) return;
      const name = asString(schedule['name']);
      if (name !== null) {
        if (names.has(name)) {
          ctx.problem(
            [...scope.segments, i, 'name'],
            ProblemKind.Conflict,
            'this schedule name is used twice in this scope',
          );
        }
        names.add(name);
      }
      if (schedule['target'] !== 'lead' || schedule['enabled'] === false) return;
      const lead = leadSeat(ctx.walk, scope.leadUnit?.lead ?? null);
      if (lead?.kind === 'human') {
        ctx.problem(
          [...scope.segments, i, 'target'],
          ProblemKind.Conflict,
          `an enabled lead target runs on the lead, and ${lead.handle === null ? 'the lead' : cutForQuote(lead.handle)} is a human seat`,
        );
      }
    });
  }
}
