/**
 * What a turn knows of the company and its seat, read from the company document: the charter, each
 * agent seat's own fields and its place in the org (unit, manager, reports). Human seats are never
 * profiled (spec: no runtime instance). Pure.
 */
import { agentId } from '../../schema/index.js';
import { colleaguesOf } from '../toolservers/index.js';
import { isRecord, type JsonObject as Json } from '../../schema/index.js';

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
  // Colleague positions by name, handle, `manages` entry and led unit, in document order (the first
  // match wins, as a scan would find it), so a thousand seats profile in linear time.
  const byName = new Map<string, number>();
  const position = new Map<string, number>();
  const managing = new Map<string, number[]>();
  const leading = new Map<string, number[]>();
  const push = (index: Map<string, number[]>, key: string, i: number): void => {
    const list = index.get(key);
    if (list) list.push(i);
    else index.set(key, [i]);
  };
  colleagues.forEach((c, i) => {
    if (!byName.has(c.name)) byName.set(c.name, i);
    if (!position.has(c.handle)) position.set(c.handle, i);
    for (const m of c.manages) push(managing, m, i);
    for (const u of c.lead_of) push(leading, u, i);
  });
  const raws = new Map<string, Json>();
  for (const raw of rawSeats(doc)) {
    const at = Math.min(
      byName.get(str(raw['name'])) ?? Infinity,
      position.get(str(raw['handle'])) ?? Infinity,
    );
    const handle = colleagues[at]?.handle;
    if (handle && !raws.has(handle)) raws.set(handle, raw);
  }
  /** The first colleague other than `handle` in any of the lists (each in document order). */
  const firstOther = (handle: string, lists: ReadonlyArray<number[] | undefined>): string | null => {
    let best = Infinity;
    for (const list of lists) {
      const i = list?.find((j) => colleagues[j]?.handle !== handle);
      if (i !== undefined && i < best) best = i;
    }
    return colleagues[best]?.handle ?? null;
  };
  // A seat's manager: whoever names it (or its unit) in `manages`, else its unit's lead.
  const managerOf = (handle: string): string | null => {
    const me = byHandle.get(handle);
    if (!me) return null;
    const unit = me.unit;
    return (
      firstOther(handle, [
        managing.get(me.name),
        managing.get(handle),
        unit !== null ? managing.get(unit) : undefined,
      ]) ?? (unit !== null ? firstOther(handle, [leading.get(unit)]) : null)
    );
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
  // Each colleague's manager once, then reports grouped by manager (in colleague order).
  const managers = new Map(colleagues.map((c) => [c.handle, managerOf(c.handle)]));
  const reportsOf = new Map<string, string[]>();
  for (const c of colleagues) {
    const manager = managers.get(c.handle) ?? null;
    if (manager === null || manager === c.handle) continue;
    const list = reportsOf.get(manager) ?? [];
    list.push(c.handle);
    reportsOf.set(manager, list);
  }
  for (const [handle, seat] of seats) {
    seats.set(handle, {
      ...seat,
      manager: managers.get(handle) ?? null,
      reports: reportsOf.get(handle) ?? [],
    });
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
