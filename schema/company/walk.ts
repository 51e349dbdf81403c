/**
 * One defensive pass over a parsed (not yet validated) document: every seat and unit with its
 * place. Rules, `derived`, attribution and normalisation all read this, so they agree on which unit
 * a seat sits in and who leads what, even when the document is invalid.
 */
import { seatIdentity } from '../document/identity.js';
import type { Company } from './company.schema.js';
import { pathOf, type Segment } from './problems.js';
import type { Seat } from './seat.schema.js';
import type { Unit } from './unit.schema.js';
import { cutForQuote } from '../text-grammars.js';

export { isRecord, type JsonObject as Json } from '../json.js';
import { isRecord, type JsonObject as Json } from '../json.js';

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

export interface UnitNode {
  readonly raw: Json;
  readonly segments: Segment[];
  readonly name: string | null;
  readonly parent: UnitNode | null;
  /** `lead` as written on this unit. */
  readonly ownLead: string | null;
  /** `lead` as written on this unit, else inherited from the nearest ancestor that names one. */
  readonly lead: string | null;
}

export interface SeatNode {
  readonly raw: Json;
  readonly segments: Segment[];
  /** `handle`, else derived from `name`; null when neither gives one. */
  readonly handle: string | null;
  readonly name: string | null;
  readonly kind: 'agent' | 'human';
  /** The unit whose `roles` list holds the seat; null at root level. */
  readonly container: UnitNode | null;
  /** Where the seat lands: its container, else (root level) the unit its `unit` field names. */
  readonly placement: UnitNode | null;
}

export interface Walk {
  readonly seats: SeatNode[];
  readonly units: UnitNode[];
  /** First unit of each name. */
  readonly unitByName: ReadonlyMap<string, UnitNode>;
  readonly seatByPath: ReadonlyMap<string, SeatNode>;
  readonly unitByPath: ReadonlyMap<string, UnitNode>;
  /** Seats a reference (a lead, a `manages` entry) names: by handle first, else by name. */
  resolveSeat(ref: string): SeatNode[];
}

function seatNode(raw: Json, segments: Segment[], container: UnitNode | null): SeatNode {
  return {
    raw,
    segments,
    handle: seatIdentity(raw),
    name: str(raw['name']),
    kind: raw['kind'] === 'human' ? 'human' : 'agent',
    container,
    placement: container,
  };
}

export function walkDocument(doc: Json): Walk {
  const seats: SeatNode[] = [];
  const units: UnitNode[] = [];
  const addSeats = (list: unknown, at: Segment[], container: UnitNode | null): void => {
    if (!Array.isArray(list)) return;
    list.forEach((seat, i) => {
      if (isRecord(seat)) seats.push(seatNode(seat, [...at, i], container));
    });
  };
  const addUnits = (list: unknown, at: Segment[], parent: UnitNode | null): void => {
    if (!Array.isArray(list)) return;
    list.forEach((raw, i) => {
      if (!isRecord(raw)) return;
      const ownLead = str(raw['lead']);
      const unit: UnitNode = {
        raw,
        segments: [...at, i],
        name: str(raw['name']),
        parent,
        ownLead,
        lead: ownLead ?? parent?.lead ?? null,
      };
      units.push(unit);
      addSeats(raw['roles'], [...unit.segments, 'roles'], unit);
      addUnits(raw['children'], [...unit.segments, 'children'], unit);
    });
  };
  addSeats(doc['roles'], ['roles'], null);
  addUnits(doc['units'], ['units'], null);

  const unitByName = new Map<string, UnitNode>();
  for (const unit of units)
    if (unit.name !== null && !unitByName.has(unit.name)) unitByName.set(unit.name, unit);
  const placed = seats.map((seat) => {
    if (seat.container !== null) return seat;
    const named = str(seat.raw['unit']);
    return { ...seat, placement: named === null ? null : (unitByName.get(named) ?? null) };
  });
  const byHandle = new Map<string, SeatNode[]>();
  const byName = new Map<string, SeatNode[]>();
  const index = (map: Map<string, SeatNode[]>, key: string | null, seat: SeatNode): void => {
    if (key !== null) map.set(key, [...(map.get(key) ?? []), seat]);
  };
  for (const seat of placed) {
    index(byHandle, seat.handle, seat);
    index(byName, seat.name, seat);
  }
  return {
    seats: placed,
    units,
    unitByName,
    seatByPath: new Map(placed.map((s) => [pathOf(s.segments), s])),
    unitByPath: new Map(units.map((u) => [pathOf(u.segments), u])),
    resolveSeat: (ref) => byHandle.get(ref) ?? byName.get(ref) ?? [],
  };
}

/**
 * The seat and unit a location sits in (for a seat, the unit it is placed in), as an answer quotes them:
 * cut by cutForQuote, since every problem under a unit would otherwise carry its whole name again.
 */
export function locate(walk: Walk, segments: readonly Segment[]): { seat?: string; unit?: string } {
  for (let n = segments.length; n > 0; n--) {
    const key = pathOf(segments.slice(0, n));
    const seat = walk.seatByPath.get(key);
    if (seat) {
      const unit = seat.placement?.name ?? undefined;
      return {
        ...(seat.handle !== null && { seat: cutForQuote(seat.handle) }),
        ...(unit !== undefined && { unit: cutForQuote(unit) }),
      };
    }
    const unit = walk.unitByPath.get(key);
    if (unit) return unit.name !== null ? { unit: cutForQuote(unit.name) } : {};
  }
  return {};
}

/** A unit of a validated document, with its place in the tree. */
export interface CompanyUnit {
  readonly unit: Unit;
  readonly name: string;
  readonly parent: CompanyUnit | null;
  /** `lead` as written on this unit, else inherited from the nearest ancestor that names one. */
  readonly lead: string | null;
}

/** A seat of a validated document, with its handle and the unit it lands in. */
export interface CompanySeat {
  readonly seat: Seat;
  readonly handle: string;
  readonly kind: 'agent' | 'human';
  /** Where the seat lands: the unit whose `roles` hold it, else (root level) the unit its `unit` names. */
  readonly unit: CompanyUnit | null;
  /** True when the seat is written inside a unit's `roles` (not at root level). */
  readonly nested: boolean;
}

/** The walk of a validated document: root seats first, then units depth-first, each unit's seats before its children. */
export interface CompanyWalk {
  /** Every seat, the first of each handle (a duplicate is a validation problem; the first keeps it). */
  readonly seats: readonly CompanySeat[];
  readonly units: readonly CompanyUnit[];
  readonly seatByHandle: ReadonlyMap<string, CompanySeat>;
  /** The unit and its ancestors, outermost first. */
  chain(unit: CompanyUnit | null): CompanyUnit[];
}

const companyWalks = new WeakMap<Company, CompanyWalk>();

/**
 * The org of a validated document as the schema types it: the one walk every applier and read model
 * uses, computed once per document (the appliers of one apply share it).
 */
export function walkCompany(company: Company): CompanyWalk {
  const known = companyWalks.get(company);
  if (known) return known;
  const walk = walkDocument(company);
  const units = new Map<UnitNode, CompanyUnit>();
  for (const node of walk.units)
    units.set(node, {
      unit: node.raw as unknown as Unit,
      name: node.name ?? '',
      parent: node.parent === null ? null : (units.get(node.parent) ?? null),
      lead: node.lead,
    });
  const seatByHandle = new Map<string, CompanySeat>();
  for (const node of walk.seats) {
    if (node.handle === null || seatByHandle.has(node.handle)) continue;
    seatByHandle.set(node.handle, {
      seat: node.raw as unknown as Seat,
      handle: node.handle,
      kind: node.kind,
      unit: node.placement === null ? null : (units.get(node.placement) ?? null),
      nested: node.container !== null,
    });
  }
  const result: CompanyWalk = {
    seats: [...seatByHandle.values()],
    units: [...units.values()],
    seatByHandle,
    chain(unit) {
      const out: CompanyUnit[] = [];
      for (let at = unit; at !== null; at = at.parent) out.unshift(at);
      return out;
    },
  };
  companyWalks.set(company, result);
  return result;
}
