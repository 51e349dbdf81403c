/**
 * `/org` (spec "Other resources"): the charter, timezone, `token_budget`, and the units nested to any
 * depth with the seats placed in them. Built from an allowlist of public fields, so no contact identity,
 * email, credential (chat tokens, `mcp_env`, sandbox env) or deployment setting (provider URLs and keys,
 * unit routing) can appear however the document grows. A seat carries its resolved `llm` chain and
 * `tool_sources`; a human seat carries `kind: human` and neither.
 */
import type { CompanyModel, SeatInfo, UnitInfo } from './company.model.js';
import type { JsonObject as Json } from '../../schema/index.js';

/** Public seat text fields, copied when present. `${VAR}` references are never resolved here. */
const seatText = ['goal', 'backstory'] as const;
const seatLists = ['responsibilities', 'behavioral_guidelines', 'manages'] as const;

export function publicSeat(seat: SeatInfo) {
  const out: Json = { name: seat.role, handle: seat.handle, kind: seat.kind, unit: seat.unit };
  for (const key of seatText) {
    const v = seat.seat[key];
    if (v) out[key] = v;
  }
  for (const key of seatLists) {
    const list = seat.seat[key];
    if (list !== undefined) out[key] = [...list];
  }
  out['lead_of'] = seat.lead_of;
  if (seat.kind === 'human') {
    if (seat.seat.availability) out['availability'] = seat.seat.availability;
    return out;
  }
  out['agent_id'] = seat.agent_id;
  out['llm'] = seat.llm;
  out['tool_sources'] = seat.tool_sources;
  out['token_budget'] = seat.token_budget;
  if (seat.seat.learning_enabled !== undefined) out['learning_enabled'] = seat.seat.learning_enabled;
  return out;
}

export interface OrgUnit {
  name: string;
  type: string | null;
  lead: string | null;
  lead_handle: string | null;
  roles: Json[];
  children: OrgUnit[];
}

export function orgView(company: CompanyModel) {
  const doc = company.document;
  const unitsByParent = new Map<string | null, UnitInfo[]>();
  const seen = new Set<string>();
  for (const u of company.units) {
    // Unit names are unique in a valid document; a duplicate nests once.
    if (seen.has(u.name)) continue;
    seen.add(u.name);
    const list = unitsByParent.get(u.parent) ?? [];
    list.push(u);
    unitsByParent.set(u.parent, list);
  }
  const seatsIn = (unit: string | null) => company.seats.filter((s) => s.unit === unit).map(publicSeat);
  const build = (u: UnitInfo, depth: number): OrgUnit => ({
    name: u.name,
    type: u.type,
    lead: u.lead,
    lead_handle: u.lead_handle,
    roles: seatsIn(u.name),
    // Depth guard: a cycle cannot be written in a tree, but a read never recurses without bound.
    children: depth > 64 ? [] : (unitsByParent.get(u.name) ?? []).map((c) => build(c, depth + 1)),
  });
  return {
    name: company.name,
    mission: doc?.mission ?? '',
    vision: doc?.vision ?? '',
    policies: doc?.policies ?? [],
    timezone: company.shown_timezone,
    token_budget: company.token_budget,
    revision_id: company.revision_id,
    roles: seatsIn(null),
    units: (unitsByParent.get(null) ?? []).map((u) => build(u, 0)),
  };
}

/** The `seats` section: every seat (humans too, marked by kind), flat, public fields only. */
export function seatList(company: CompanyModel): Json[] {
  return company.seats.map(publicSeat);
}
