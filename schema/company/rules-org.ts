/**
 * Org-chart rules: seat handles, unit names, placement, leads and `manages`. Dangling references are
 * warnings (spec write rule 1): the chart may be edited in several steps. Messages in every rule file
 * name no value the operator wrote (a credential pasted into the wrong field must not come back in a
 * refusal); a dangling reference carries what it names in `to`, as the spec asks, and its message
 * may name the existing seat or unit the reference most likely meant (a did-you-mean).
 */
import { closestName } from '../did-you-mean.js';
import { cutForQuote } from '../text-grammars.js';
import { deriveHandle } from '../document/identity.js';
import { leadSeat } from './derived.js';
import { pathOf, ProblemKind, ReferenceKind } from './problems.js';
import { asList, asString, type RuleContext } from './rule-context.js';
import type { SeatNode, Walk } from './walk.js';

/** `; did you mean `Bo Agent`?` when a name in the chart is close to `word`, else nothing. */
export function nearestInChart(walk: Walk, word: string, what: { seats: boolean; units: boolean }): string {
  const names = [
    ...(what.seats ? walk.seats.flatMap((s) => [s.name, s.handle]) : []),
    ...(what.units ? walk.units.map((u) => u.name) : []),
  ].filter((n): n is string => n !== null);
  const near = closestName(word, names);
  return near === null ? '' : `; did you mean \`${cutForQuote(near)}\`?`;
}

const maxHandle = 64;
/** Handles a static route under `/agents/` takes (http/routes/readmodels): `/agents/{id}` could not reach them. */
const reservedHandles: ReadonlySet<string> = new Set(['activity']);

/** Handles: derivable when absent, unique org-wide across agents and humans. */
export function handleRules(ctx: RuleContext): void {
  const holders = new Map<string, SeatNode>();
  for (const seat of ctx.walk.seats) {
    const written = seat.raw['handle'];
    const derived = written === undefined;
    if (derived && seat.name !== null) {
      const handle = deriveHandle(seat.name);
      if (handle === '') {
        ctx.problem(
          [...seat.segments, 'name'],
          ProblemKind.Invalid,
          'no handle can be derived from this name; set handle',
        );
      } else if (handle.length > maxHandle) {
        ctx.problem(
          [...seat.segments, 'name'],
          ProblemKind.OutOfRange,
          `the handle derived from this name is longer than ${maxHandle} characters; set handle`,
        );
      }
    }
    if (seat.handle === null || (!derived && typeof written !== 'string')) continue;
    const quoted = cutForQuote(seat.handle);
    if (reservedHandles.has(seat.handle)) {
      // Admission, not a problem: a stored document that has one still loads, with a warning.
      ctx.admission(
        [...seat.segments, derived ? 'name' : 'handle'],
        ProblemKind.Conflict,
        `handle ${quoted} is reserved: GET /agents/${quoted} reads the ${quoted} rollup, not a seat; set another handle`,
      );
    }
    const first = holders.get(seat.handle);
    if (first === undefined) {
      holders.set(seat.handle, seat);
      continue;
    }
    const how = derived ? ` (derived from the name; set a distinct handle)` : '';
    ctx.problem(
      [...seat.segments, derived ? 'name' : 'handle'],
      ProblemKind.Conflict,
      `handle ${quoted} is already held by the seat at ${pathOf(first.segments)}${how}`,
    );
  }
}

/**
 * Unit names are unique org-wide: they are the units' identity, matched as written (case included). Two
 * names that are one text in two Unicode forms (`Café` precomposed, `Cafe` + U+0301) read alike everywhere,
 * so only one could be reached by a seat's `unit`, a lead or `/config/units/{name}`: refused on a new write,
 * an admission rule so a stored revision holding both still loads.
 */
export function unitNameRules(ctx: RuleContext): void {
  const seen = new Map<string, string>();
  const forms = new Map<string, string>();
  for (const unit of ctx.walk.units) {
    if (unit.name === null) continue;
    const at = [...unit.segments, 'name'];
    const first = seen.get(unit.name);
    if (first !== undefined) {
      ctx.problem(at, ProblemKind.Conflict, `this unit name is already used by the unit at ${first}`);
      continue;
    }
    seen.set(unit.name, pathOf(unit.segments));
    const form = unit.name.normalize('NFC');
    const twin = forms.get(form);
    if (twin === undefined) forms.set(form, pathOf(unit.segments));
    else {
      ctx.admission(
        at,
        ProblemKind.Conflict,
        `this unit name is already used by the unit at ${twin}, written in another Unicode form (the same letters, composed differently)`,
      );
    }
  }
}

/** A seat in a unit's `roles` sits there; a root seat's `unit` must name a unit. */
export function placementRules(ctx: RuleContext): void {
  for (const seat of ctx.walk.seats) {
    const named = asString(seat.raw['unit']);
    if (named === null) continue;
    const at = [...seat.segments, 'unit'];
    if (seat.container !== null) {
      if (named !== seat.container.name) {
        ctx.problem(
          at,
          ProblemKind.Conflict,
          'the seat is listed in the roles of another unit than the one it names',
        );
      }
    } else if (!ctx.walk.unitByName.has(named)) {
      const nearestUnit = nearestInChart(ctx.walk, named, { seats: false, units: true });
      ctx.dangling({
        segments: at,
        ref: ReferenceKind.Unit,
        ...(seat.handle !== null && { from: seat.handle }),
        to: named,
        message: `names no unit; the seat lands nowhere until the unit exists${nearestUnit}`,
      });
    }
  }
}

/** A unit's own `lead` names one seat (by handle or name). Inherited leads are checked where written. */
export function leadRules(ctx: RuleContext): void {
  for (const unit of ctx.walk.units) {
    if (unit.ownLead === null) continue;
    if (leadSeat(ctx.walk, unit.ownLead) !== null) continue;
    const many = ctx.walk.resolveSeat(unit.ownLead).length > 1;
    ctx.dangling({
      segments: [...unit.segments, 'lead'],
      ref: ReferenceKind.Lead,
      ...(unit.name !== null && { from: unit.name }),
      to: unit.ownLead,
      message: many
        ? 'names several seats; name the lead by handle'
        : `names no seat${nearestInChart(ctx.walk, unit.ownLead, { seats: true, units: false })}`,
    });
  }
}

/** `manages` entries name seats (handle or name) or units. */
export function managesRules(ctx: RuleContext): void {
  for (const seat of ctx.walk.seats) {
    asList(seat.raw['manages']).forEach((entry, i) => {
      if (typeof entry !== 'string') return;
      if (ctx.walk.unitByName.has(entry) || ctx.walk.resolveSeat(entry).length > 0) return;
      ctx.dangling({
        segments: [...seat.segments, 'manages', i],
        ref: ReferenceKind.Manages,
        ...(seat.handle !== null && { from: seat.handle }),
        to: entry,
        message: `names no seat or unit${nearestInChart(ctx.walk, entry, { seats: true, units: true })}`,
      });
    });
  }
}
