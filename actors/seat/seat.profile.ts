/**
 * What a turn knows of the company and its seat, read from the company document: the charter, each
 * agent seat's own fields and its place in the org (unit, manager, reports). Human seats are never
 * profiled (spec: no runtime instance). Pure.
 */
import { agentId, companyTimezone, walkCompany, type Company, type Resolver } from '../../schema/index.js';
import { colleaguesOf } from '../toolservers/index.js';
import { coalescingOf, type Coalescing } from './seat.coalesce.js';

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

/** The company as the seats read it: the charter, limits and every agent seat's profile. */
export interface CompanyProfile {
  readonly charter: Charter;
  readonly timezone: string;
  /** Org cap; 0 = unlimited. */
  readonly token_budget: number;
  readonly turn_engine: Company['turn_engine'];
  /** Inbox batching of notification wakes. */
  readonly coalescing: Coalescing;
  readonly seats: ReadonlyMap<string, SeatProfile>;
}

const budget = (v: number | undefined): number => (v !== undefined && v > 0 ? v : 0);

/** `resolve` answers a `${VAR}` in the company `timezone`, so budgets and prompts use the zone schedules use. */
export function companyOf(company: Company | null, resolve?: Resolver): CompanyProfile {
  const name = company?.name ?? '';
  const walk = company === null ? null : walkCompany(company);
  const colleagues = company === null ? [] : colleaguesOf(company);
  const byHandle = new Map(colleagues.map((c) => [c.handle, c]));
  // Colleague positions by `manages` entry and led unit, in document order (the first match wins, as
  // a scan would find it), so a thousand seats profile in linear time.
  const managing = new Map<string, number[]>();
  const leading = new Map<string, number[]>();
  const push = (index: Map<string, number[]>, key: string, i: number): void => {
    const list = index.get(key);
    if (list) list.push(i);
    else index.set(key, [i]);
  };
  colleagues.forEach((c, i) => {
    for (const m of c.manages) push(managing, m, i);
    for (const u of c.lead_of) push(leading, u, i);
  });
  /** The first colleague other than `handle` in any of the lists (each in document order). */
  const firstOther = (handle: string, lists: ReadonlyArray<number[] | undefined>): string | null => {
    let best = Infinity;
    for (const list of lists) {
      const i = list?.find((j) => colleagues[j]?.handle !== handle);
      if (i !== undefined && i < best) best = i;
    }
    return colleagues[best]?.handle ?? null;
  };
  /** The lead of the nearest unit from the seat's own outwards led by someone else (a unit's own lead reports up). */
  const leadAbove = (handle: string): string | null => {
    for (let u = walk?.seatByHandle.get(handle)?.unit ?? null; u !== null; u = u.parent) {
      const lead = firstOther(handle, [leading.get(u.name)]);
      if (lead !== null) return lead;
    }
    return null;
  };
  // A seat's manager: whoever names it (or its unit) in `manages`, else its unit's lead (for that lead, the
  // lead of the nearest unit above led by another).
  const managerOf = (handle: string): string | null => {
    const me = byHandle.get(handle);
    if (!me) return null;
    const unit = me.unit;
    return (
      firstOther(handle, [
        // An entry names a seat by handle first: the seat's name counts only when it is no seat's handle.
        me.name === handle || !byHandle.has(me.name) ? managing.get(me.name) : undefined,
        managing.get(handle),
        unit !== null ? managing.get(unit) : undefined,
      ]) ?? (unit !== null ? leadAbove(handle) : null)
    );
  };
  const seats = new Map<string, SeatProfile>();
  for (const c of colleagues) {
    if (c.kind !== 'agent') continue;
    const seat = walk?.seatByHandle.get(c.handle)?.seat;
    seats.set(c.handle, {
      handle: c.handle,
      name: c.name,
      agent_id: agentId(name, c.handle),
      goal: seat?.goal ?? '',
      backstory: seat?.backstory ?? '',
      responsibilities: seat?.responsibilities ?? [],
      behavioral_guidelines: seat?.behavioral_guidelines ?? [],
      llm: seat?.llm ?? null,
      token_budget: budget(seat?.token_budget),
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
      mission: company?.mission ?? '',
      vision: company?.vision ?? '',
      policies: company?.policies ?? [],
    },
    timezone: company === null ? 'UTC' : companyTimezone(company, resolve ? { resolve } : {}),
    token_budget: budget(company?.token_budget),
    turn_engine: company?.turn_engine,
    coalescing: coalescingOf(company),
    seats,
  };
}
