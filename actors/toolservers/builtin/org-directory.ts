/**
 * The colleagues of a company document with public fields only (spec "Org view": no contact
 * identity, email, credential or deployment setting), for `org_lookup` and `ask_human`.
 */
import { seatIdentity } from '../../../schema/index.js';
import type { Colleague, OrgDirectory } from './builtin.types.js';
import { isRecord, type JsonObject as Json } from '../../../schema/index.js';

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const strs = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

interface Placed {
  readonly raw: Json;
  readonly unit: string | null;
}

export function colleaguesOf(document: unknown): Colleague[] {
  if (!isRecord(document)) return [];
  const placed: Placed[] = [];
  // Effective lead per unit: its own, else inherited from the parent.
  const leads: Array<{ unit: string; lead: string }> = [];
  const unitNames = new Set<string>();
  const walk = (list: unknown, parentLead: string | null): void => {
    if (!Array.isArray(list)) return;
    for (const unit of list) {
      if (!isRecord(unit)) continue;
      const name = str(unit['name']);
      const lead = str(unit['lead']) ?? parentLead;
      if (name !== null) {
        unitNames.add(name);
        if (lead !== null) leads.push({ unit: name, lead });
      }
      for (const seat of Array.isArray(unit['roles']) ? unit['roles'] : [])
        if (isRecord(seat)) placed.push({ raw: seat, unit: name });
      walk(unit['children'], lead);
    }
  };
  walk(document['units'], null);
  for (const seat of Array.isArray(document['roles']) ? document['roles'] : []) {
    if (!isRecord(seat)) continue;
    const unit = str(seat['unit']);
    placed.push({ raw: seat, unit: unit !== null && unitNames.has(unit) ? unit : null });
  }
  const seen = new Set<string>();
  const out: Colleague[] = [];
  for (const { raw, unit } of placed) {
    const handle = seatIdentity(raw);
    if (handle === null || seen.has(handle)) continue;
    seen.add(handle);
    const name = str(raw['name']) ?? handle;
    const human = raw['kind'] === 'human';
    out.push({
      handle,
      name,
      kind: human ? 'human' : 'agent',
      unit,
      lead_of: leads.filter((l) => l.lead === handle || l.lead === name).map((l) => l.unit),
      goal: str(raw['goal']),
      responsibilities: strs(raw['responsibilities']),
      manages: strs(raw['manages']),
      availability: human ? str(raw['availability']) : null,
    });
  }
  return out;
}

/** A directory over whatever document `current` returns (the active one, as applies happen). */
export function orgDirectoryFrom(current: () => unknown): OrgDirectory {
  let cachedFor: unknown = undefined;
  let cached: Colleague[] = [];
  return {
    colleagues() {
      const document = current();
      if (document !== cachedFor) {
        cached = colleaguesOf(document);
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
