/**
 * The active company document as the read models need it: seats (from `derived.seats`, so handles,
 * kinds, placement and agent ids agree with the config subsystem), units, timezone, budgets, and each
 * agent seat's resolved LLM chain and tool sources. Built once per active revision.
 */
import {
  isRecord,
  validateCompany,
  type DerivedSeat,
  type DerivedUnit,
  type JsonObject as Json,
} from '../../schema/index.js';
import { safeZone } from '../time/zoned-time.js';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);
const count = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);

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
  readonly raw: Json;
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
  readonly document: Json;
  readonly name: string;
  readonly timezone: string;
  /** Org-wide cap; 0 = unlimited. */
  readonly token_budget: number;
  /** Every seat with a handle, in document order. */
  readonly seats: SeatInfo[];
  readonly units: UnitInfo[];
}

/** The model of "no active revision": no seats, UTC. */
export const emptyCompany: CompanyModel = {
  revision_id: null,
  document: {},
  name: '',
  timezone: 'UTC',
  token_budget: 0,
  seats: [],
  units: [],
};

/** Raw seat maps in the order the schema's walk visits them: root roles, then units depth-first. */
function rawSeats(doc: Json): Json[] {
  const out: Json[] = [];
  const seats = (list: unknown): void => {
    if (Array.isArray(list)) for (const s of list) if (isRecord(s)) out.push(s);
  };
  const units = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const u of list) {
      if (!isRecord(u)) continue;
      seats(u['roles']);
      units(u['children']);
    }
  };
  seats(doc['roles']);
  units(doc['units']);
  return out;
}

function llmChain(doc: Json, raw: Json): LlmLink[] {
  const providers = isRecord(doc['providers']) ? doc['providers'] : {};
  const entries = isRecord(providers['llm']) ? providers['llm'] : {};
  const pin = str(raw['llm']);
  const order = strList(providers['llm_order']);
  const keys = pin !== null ? [pin] : order.length > 0 ? order : Object.keys(entries);
  return keys.map((key) => {
    const entry = isRecord(entries[key]) ? entries[key] : {};
    return { key, type: str(entry['type']), model: str(entry['model']) };
  });
}

/** Every tool server serves every agent seat (a per-seat server runs one process per seat). */
function toolSources(doc: Json): string[] {
  const servers = Array.isArray(doc['mcp_servers']) ? doc['mcp_servers'] : [];
  const names = servers
    .filter(isRecord)
    .map((s) => str(s['name']))
    .filter((n): n is string => n !== null);
  return ['builtin', ...names.map((n) => `mcp:${n}`)];
}

function seatInfo(doc: Json, derived: DerivedSeat, raw: Json): SeatInfo | null {
  if (derived.handle === null) return null;
  const agent = derived.kind === 'agent';
  return {
    handle: derived.handle,
    role: derived.name ?? derived.handle,
    kind: derived.kind,
    unit: derived.unit,
    agent_id: derived.agent_id,
    token_budget: agent ? count(raw['token_budget']) : 0,
    llm: agent ? llmChain(doc, raw) : [],
    tool_sources: agent ? toolSources(doc) : [],
    raw,
    lead_of: derived.lead_of,
  };
}

function unitInfo(u: DerivedUnit): UnitInfo | null {
  if (u.name === null) return null;
  return { name: u.name, type: u.type, lead: u.lead, lead_handle: u.lead_handle, parent: u.parent };
}

/** Builds the model from an opened document; anything not a map reads as an empty company. */
export function companyModel(document: unknown, revisionId: string | null): CompanyModel {
  if (!isRecord(document)) return { ...emptyCompany, revision_id: revisionId };
  const result = validateCompany(document, { mode: 'runnable' });
  const derived = result.derived ?? { seats: [], units: [] };
  const raws = rawSeats(document);
  const seen = new Set<string>();
  const seats: SeatInfo[] = [];
  derived.seats.forEach((d, i) => {
    const info = seatInfo(document, d, raws[i] ?? {});
    // A duplicate handle is a validation problem; the first seat keeps the handle here.
    if (info && !seen.has(info.handle)) {
      seen.add(info.handle);
      seats.push(info);
    }
  });
  return {
    revision_id: revisionId,
    document,
    name: str(document['name']) ?? '',
    timezone: safeZone(str(document['timezone'])),
    token_budget: count(document['token_budget']),
    seats,
    units: derived.units.map(unitInfo).filter((u): u is UnitInfo => u !== null),
  };
}

/** A seat by handle, else by role (display) name. */
export function findSeat(company: CompanyModel, id: string): SeatInfo | null {
  return company.seats.find((s) => s.handle === id) ?? company.seats.find((s) => s.role === id) ?? null;
}
