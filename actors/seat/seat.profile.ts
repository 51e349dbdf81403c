/**
 * What a turn knows of the company and its seat, read from the company document: the charter, each
 * agent seat's own fields and its place in the org (unit, manager, reports). Human seats are never
 * profiled (spec: no runtime instance). Pure.
 */
import { agentId } from '../../schema/index.js';
import { colleaguesOf } from '../toolservers/index.js';

export interface Charter {
  readonly name: string;
  readonly mission: string;
  readonly vision: string;
  readonly policies: readonly string[];
}

export interface SeatProfile {
  readonly handle: string;
  readonly name: string;
  /** Durable id: UUIDv5 over (company name, handle); a kind flip back reattaches memory. */
  readonly agent_id: string;
  readonly goal: string;
  readonly backstory: string;
  readonly responsibilities: readonly string[];
  readonly behavioral_guidelines: readonly string[];
  readonly llm: string | null;
  /** Per-seat cap; 0 = unlimited. */
  readonly token_budget: number;
  readonly unit: string | null;
  readonly manager: string | null;
  readonly reports: readonly string[];
}

export interface Company {
  readonly charter: Charter;
  readonly timezone: string;
  /** Org cap; 0 = unlimited. */
  readonly token_budget: number;
  readonly turn_engine: unknown;
  readonly seats: ReadonlyMap<string, SeatProfile>;
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strs = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
const budget = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : 0);

/** Every seat entry of the document (roots and units, any depth), raw, in document order. */
function rawSeats(doc: Json): Json[] {
  const out: Json[] = [];
  const units = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const u of list) {
      if (!isRecord(u)) continue;
      for (const s of Array.isArray(u['roles']) ? u['roles'] : []) if (isRecord(s)) out.push(s);
      units(u['children']);
    }
  };
  for (const s of Array.isArray(doc['roles']) ? doc['roles'] : []) if (isRecord(s)) out.push(s);
  units(doc['units']);
  return out;
}

export function companyOf(document: unknown): Company {
  const doc = isRecord(document) ? document : {};
  const name = str(doc['name']);
  const colleagues = colleaguesOf(doc);
  const byHandle = new Map(colleagues.map((c) => [c.handle, c]));
  const raws = new Map<string, Json>();
  for (const raw of rawSeats(doc)) {
    const handle = colleagues.find(
      (c) => c.name === str(raw['name']) || c.handle === str(raw['handle']),
    )?.handle;
    if (handle && !raws.has(handle)) raws.set(handle, raw);
  }
  // A seat's manager: whoever names it (or its unit) in `manages`, else its unit's lead.
  const managerOf = (handle: string): string | null => {
    const me = byHandle.get(handle);
    if (!me) return null;
    const named = colleagues.find(
      (c) =>
        c.handle !== handle &&
        (c.manages.includes(me.name) ||
          c.manages.includes(handle) ||
          (me.unit !== null && c.manages.includes(me.unit))),
    );
    if (named) return named.handle;
    const lead = colleagues.find(
      (c) => c.handle !== handle && me.unit !== null && c.lead_of.includes(me.unit),
    );
    return lead?.handle ?? null;
  };
  const seats = new Map<string, SeatProfile>();
  for (const c of colleagues) {
    if (c.kind !== 'agent') continue;
    const raw = raws.get(c.handle) ?? {};
    seats.set(c.handle, {
      handle: c.handle,
      name: c.name,
      agent_id: agentId(name, c.handle),
      goal: str(raw['goal']),
      backstory: str(raw['backstory']),
      responsibilities: strs(raw['responsibilities']),
      behavioral_guidelines: strs(raw['behavioral_guidelines']),
      llm: typeof raw['llm'] === 'string' ? raw['llm'] : null,
      token_budget: budget(raw['token_budget']),
      unit: c.unit,
      manager: null,
      reports: [],
    });
  }
  for (const [handle, seat] of seats) {
    const manager = managerOf(handle);
    const reports = colleagues
      .filter((c) => c.handle !== handle && managerOf(c.handle) === handle)
      .map((c) => c.handle);
    seats.set(handle, { ...seat, manager, reports });
  }
  return {
    charter: {
      name,
      mission: str(doc['mission']),
      vision: str(doc['vision']),
      policies: strs(doc['policies']),
    },
    timezone: str(doc['timezone']) || 'UTC',
    token_budget: budget(doc['token_budget']),
    turn_engine: doc['turn_engine'],
    seats,
  };
}
