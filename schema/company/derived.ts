/**
 * `derived{seats[], units[]}` (spec write rules 1 and 3): what the document means once handles are
 * derived, seats placed and leads inherited. Computed from the walk, so it exists for any document
 * that parsed into a map, valid or not.
 */
import { agentId } from './agent-id.js';
import { pathOf } from './problems.js';
import { cutForQuote } from '../text-grammars.js';
import type { Company } from './company.schema.js';
import { walkDocument, type SeatNode, type Walk } from './walk.js';

export interface DerivedSeat {
  readonly handle: string | null;
  readonly name: string | null;
  readonly kind: 'agent' | 'human';
  /** The unit the seat lands in; null when it lands nowhere (root level, or a dangling `unit`). */
  readonly unit: string | null;
  /** Durable agent id; null for human seats (never executed) and when the company has no name. */
  readonly agent_id: string | null;
  /** Units this seat effectively leads (own `lead` or inherited). */
  readonly lead_of: string[];
}

export interface DerivedUnit {
  readonly name: string | null;
  /** Document location, e.g. `units[0].children[1]`. */
  readonly path: string;
  readonly type: string | null;
  /** The effective lead as written (inherited from the parent when the unit names none). */
  readonly lead: string | null;
  /** Handle of the seat the effective lead names; null when it names none (or several). */
  readonly lead_handle: string | null;
  readonly parent: string | null;
}

export interface Derived {
  readonly seats: DerivedSeat[];
  readonly units: DerivedUnit[];
}

/** The one seat a lead names, or null when it names none or is ambiguous. */
export function leadSeat(walk: Walk, lead: string | null): SeatNode | null {
  if (lead === null) return null;
  const found = walk.resolveSeat(lead);
  return found.length === 1 ? (found[0] ?? null) : null;
}

export function deriveCompany(walk: Walk, companyName: unknown): Derived {
  const units: DerivedUnit[] = walk.units.map((unit) => ({
    name: unit.name,
    path: pathOf(unit.segments),
    type: typeof unit.raw['type'] === 'string' ? unit.raw['type'] : null,
    lead: unit.lead,
    lead_handle: leadSeat(walk, unit.lead)?.handle ?? null,
    parent: unit.parent?.name ?? null,
  }));
  const company = typeof companyName === 'string' && companyName !== '' ? companyName : null;
  const seats: DerivedSeat[] = walk.seats.map((seat) => ({
    handle: seat.handle,
    name: seat.name,
    kind: seat.kind,
    unit: seat.placement?.name ?? null,
    agent_id:
      seat.kind === 'agent' && company !== null && seat.handle !== null
        ? agentId(company, seat.handle)
        : null,
    lead_of: units
      .filter((u) => u.name !== null && seat.handle !== null && u.lead_handle === seat.handle)
      .map((u) => u.name as string),
  }));
  return { seats, units };
}

const cutOrNull = (name: string | null): string | null => (name === null ? null : cutForQuote(name));

/**
 * `derived` as a write's answer quotes it: every name cut by cutForQuote (a unit's name comes back once
 * for the unit, once per child as `parent` and once per seat in it), ids and paths whole. The applied
 * document's `derived` (derivedOf) is data and keeps names whole.
 */
export function quotedDerived(derived: Derived): Derived {
  return {
    seats: derived.seats.map((seat) => ({
      ...seat,
      handle: cutOrNull(seat.handle),
      name: cutOrNull(seat.name),
      unit: cutOrNull(seat.unit),
      lead_of: seat.lead_of.map(cutForQuote),
    })),
    units: derived.units.map((unit) => ({
      ...unit,
      name: cutOrNull(unit.name),
      type: cutOrNull(unit.type),
      lead: cutOrNull(unit.lead),
      lead_handle: cutOrNull(unit.lead_handle),
      parent: cutOrNull(unit.parent),
    })),
  };
}

/** `derived` of a validated document. */
export function derivedOf(company: Company): Derived {
  return deriveCompany(walkDocument(company), company.name);
}
