/**
 * The active company document as the read models need it: seats (from `derived.seats`, so handles,
 * kinds, placement and agent ids agree with the config subsystem), units, timezone, budgets, and each
 * agent seat's resolved LLM chain and tool sources. Built once per active revision.
 */
import {
  companyZone,
  derivedOf,
  walkCompany,
  type Company,
  type DerivedSeat,
  type DerivedUnit,
  type Resolver,
  type Seat,
} from '../../schema/index.js';
import { safeZone } from '../time/zoned-time.js';

/** One link of a seat's provider chain: public identity only (no base URL, no keys). */
export interface LlmLink {
  readonly key: string;
  readonly type: string | null;
  readonly model: string | null;
}

export interface SeatInfo {
  readonly handle: string;
  /** The seat's display name: the `role` of an agent row. */
  readonly role: string;
  readonly kind: 'agent' | 'human';
  readonly unit: string | null;
  readonly agent_id: string | null;
  /** Per-seat token cap; 0 = unlimited. */
  readonly token_budget: number;
  readonly llm: LlmLink[];
  readonly tool_sources: string[];
  /** The seat as written (only the org view's allowlist of it is ever served). */
  readonly seat: Seat;
  readonly lead_of: string[];
}

export interface UnitInfo {
  readonly name: string;
  readonly type: string | null;
  readonly lead: string | null;
  readonly lead_handle: string | null;
  readonly parent: string | null;
}

export interface CompanyModel {
  readonly revision_id: string | null;
  /** Null when no revision is active. */
  readonly document: Company | null;
  readonly name: string;
  /** The zone to compute by; never shown (it may be a secret's value). */
  readonly timezone: string;
  /** The zone as answers show it: `timezone`, or its written `${VAR}` when the secret store answers it. */
  readonly shown_timezone: string;
  /** Org-wide cap; 0 = unlimited. */
  readonly token_budget: number;
  /** Every seat with a handle, in document order. */
  readonly seats: SeatInfo[];
  readonly units: UnitInfo[];
}

/** The model of "no active revision": no seats, UTC. */
export const emptyCompany: CompanyModel = {
  revision_id: null,
  document: null,
  name: '',
  timezone: 'UTC',
  shown_timezone: 'UTC',
  token_budget: 0,
  seats: [],
  units: [],
};

function llmChain(company: Company, seat: Seat): LlmLink[] {
  const entries = company.providers?.llm ?? {};
  // As the turn engine resolves it (actors/seat/providers): an empty `llm_order` is an empty chain.
  const keys = seat.llm ? [seat.llm] : (company.providers?.llm_order ?? Object.keys(entries));
  return keys.map((key) => ({ key, type: entries[key]?.type ?? null, model: entries[key]?.model || null }));
}

/** Every tool server serves every agent seat (a per-seat server runs one process per seat). */
function toolSources(company: Company): string[] {
  return ['builtin', ...(company.mcp_servers ?? []).map((s) => `mcp:${s.name}`)];
}

function seatInfo(company: Company, derived: DerivedSeat, seat: Seat): SeatInfo {
  const agent = derived.kind === 'agent';
  return {
    handle: derived.handle ?? '',
    role: derived.name ?? derived.handle ?? '',
    kind: derived.kind,
    unit: derived.unit,
    agent_id: derived.agent_id,
    token_budget: agent ? (seat.token_budget ?? 0) : 0,
    llm: agent ? llmChain(company, seat) : [],
    tool_sources: agent ? toolSources(company) : [],
    seat,
    lead_of: derived.lead_of,
  };
}

function unitInfo(u: DerivedUnit): UnitInfo | null {
  if (u.name === null) return null;
  return { name: u.name, type: u.type, lead: u.lead, lead_handle: u.lead_handle, parent: u.parent };
}

/**
 * Builds the model from the applied document (null: no active revision, an empty company). `resolve`
 * answers a `${VAR}` in `timezone` (spec: the timezone is shown resolved), as the schedules read it; `secret`
 * says which names the secret store answers: a timezone holding one is shown as written (ops/schedules.md).
 */
export function companyModel(
  company: Company | null,
  revisionId: string | null,
  resolve?: Resolver,
  secret?: (name: string) => boolean,
): CompanyModel {
  if (company === null) return { ...emptyCompany, revision_id: revisionId };
  const derived = derivedOf(company);
  const walk = walkCompany(company);
  const seen = new Set<string>();
  const seats: SeatInfo[] = [];
  for (const d of derived.seats) {
    // A duplicate handle is a validation problem; the first seat keeps the handle here.
    const placed = d.handle === null || seen.has(d.handle) ? undefined : walk.seatByHandle.get(d.handle);
    if (placed === undefined) continue;
    seen.add(placed.handle);
    seats.push(seatInfo(company, d, placed.seat));
  }
  return {
    revision_id: revisionId,
    document: company,
    name: company.name,
    ...zoneOf(company, resolve, secret),
    token_budget: company.token_budget ?? 0,
    seats,
    units: derived.units.map(unitInfo).filter((u): u is UnitInfo => u !== null),
  };
}

function zoneOf(
  company: Company,
  resolve: Resolver | undefined,
  secret: ((name: string) => boolean) | undefined,
): Pick<CompanyModel, 'timezone' | 'shown_timezone'> {
  const zone = companyZone(company, { ...(resolve && { resolve }), ...(secret && { secret }) });
  const timezone = safeZone(zone.value);
  return { timezone, shown_timezone: zone.hidden ? zone.shown : timezone };
}
