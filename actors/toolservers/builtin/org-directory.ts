/**
 * The colleagues of a company document with public fields only (spec "Org view": no contact
 * identity, email, credential or deployment setting), for `org_lookup` and `ask_human`.
 */
import { walkCompany, type Company } from '../../../schema/index.js';
import type { Colleague, OrgDirectory } from './builtin.types.js';

/** Seats placed in units first (document order), then root-level seats: the order lookups list them in. */
export function colleaguesOf(company: Company): Colleague[] {
  const walk = walkCompany(company);
  const byName = new Map<string, string[]>();
  for (const s of walk.seats) byName.set(s.seat.name, [...(byName.get(s.seat.name) ?? []), s.handle]);
  // A lead names a seat by handle first, else by a name exactly one seat bears (as schedules and /org read it).
  const leadHandle = (ref: string): string | null => {
    const named = walk.seatByHandle.has(ref) ? [ref] : (byName.get(ref) ?? []);
    return named.length === 1 ? (named[0] ?? null) : null;
  };
  const leads = walk.units.flatMap((u) => {
    const lead = u.lead === null ? null : leadHandle(u.lead);
    return lead === null ? [] : [{ name: u.name, lead }];
  });
  const ordered = [...walk.seats.filter((s) => s.nested), ...walk.seats.filter((s) => !s.nested)];
  return ordered.map(({ seat, handle, kind, unit }) => {
    const name = seat.name;
    return {
      handle,
      name,
      kind,
      unit: unit?.name ?? null,
      lead_of: leads.filter((u) => u.lead === handle).map((u) => u.name),
      goal: seat.goal || null,
      responsibilities: seat.responsibilities ?? [],
      manages: seat.manages ?? [],
      availability: kind === 'human' ? seat.availability || null : null,
    };
  });
}

/** A directory over whatever document `current` returns (the active one, as applies happen). */
export function orgDirectoryFrom(current: () => Company | null): OrgDirectory {
  let cachedFor: Company | null | undefined = undefined;
  let cached: Colleague[] = [];
  return {
    colleagues() {
      const document = current();
      if (document !== cachedFor) {
        cached = document === null ? [] : colleaguesOf(document);
        cachedFor = document;
      }
      return cached;
    },
  };
}

/**
 * Colleagues a query names, best first: an exact handle, then an exact name (case-insensitive),
 * then every colleague whose handle, name, unit, goal or responsibilities contain the query.
 */
export function findColleagues(all: readonly Colleague[], query: string): Colleague[] {
  const q = query.trim().toLowerCase().replace(/^@/, '');
  if (q === '') return [];
  const byHandle = all.filter((c) => c.handle === q);
  if (byHandle.length > 0) return byHandle;
  const byName = all.filter((c) => c.name.toLowerCase() === q);
  if (byName.length > 0) return byName;
  return all.filter((c) =>
    [c.handle, c.name, c.unit ?? '', c.goal ?? '', ...c.responsibilities, ...c.lead_of].some((field) =>
      field.toLowerCase().includes(q),
    ),
  );
}
