/**
 * The people of a company document as the webhook side needs them: every seat with its kind, contacts
 * and own integration credentials, and every unit with its effective lead and wiki space. Works on any
 * document that parsed into a map (the active one is valid); missing pieces read as null.
 */
import { deriveHandle } from './document/index.js';
import { isRecord } from './json.js';

export interface DirectorySeat {
  readonly handle: string;
  readonly name: string;
  readonly kind: 'agent' | 'human';
  readonly email: string | null;
  /** Human contact identities (`chat_user_id`, `codehost_a_login`, ...), as written. */
  readonly contacts: Readonly<Record<string, string>>;
  /** The seat's own `integrations` block (agents only), as written. */
  readonly integrations: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly unit: string | null;
}

export interface DirectoryUnit {
  readonly name: string;
  /** Handle of the effective lead (own `lead`, else inherited); null when it names no seat. */
  readonly lead: string | null;
  /** `integrations.wiki.space` of the unit. */
  readonly wikiSpace: string | null;
}

export interface SeatDirectory {
  readonly seats: ReadonlyMap<string, DirectorySeat>;
  readonly units: readonly DirectoryUnit[];
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function stringRecord(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isRecord(v)) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

function seatOf(raw: unknown, unit: string | null): DirectorySeat | null {
  if (!isRecord(raw)) return null;
  const name = str(raw['name']) ?? '';
  const handle = str(raw['handle']) ?? (name ? deriveHandle(name) : '');
  if (handle === '') return null;
  const integrations: Record<string, Record<string, unknown>> = {};
  if (isRecord(raw['integrations']))
    for (const [k, v] of Object.entries(raw['integrations'])) if (isRecord(v)) integrations[k] = v;
  return {
    handle,
    name,
    kind: raw['kind'] === 'human' ? 'human' : 'agent',
    email: str(raw['email']),
    contacts: stringRecord(raw['contact']),
    integrations,
    unit: str(raw['unit']) ?? unit,
  };
}

export function seatDirectory(document: unknown): SeatDirectory {
  const seats = new Map<string, DirectorySeat>();
  const pending: Array<{ name: string; lead: string | null; wikiSpace: string | null }> = [];
  const doc = isRecord(document) ? document : {};
  for (const raw of list(doc['roles'])) {
    const seat = seatOf(raw, null);
    if (seat) seats.set(seat.handle, seat);
  }
  const walk = (units: unknown, parentLead: string | null): void => {
    for (const raw of list(units)) {
      if (!isRecord(raw)) continue;
      const name = str(raw['name']) ?? '';
      const lead = str(raw['lead']) ?? parentLead;
      const wiki = isRecord(raw['integrations']) ? raw['integrations']['wiki'] : undefined;
      pending.push({ name, lead, wikiSpace: isRecord(wiki) ? str(wiki['space']) : null });
      for (const r of list(raw['roles'])) {
        const seat = seatOf(r, name);
        if (seat) seats.set(seat.handle, seat);
      }
      walk(raw['children'], lead);
    }
  };
  walk(doc['units'], null);
  const leadHandle = (lead: string | null): string | null => {
    if (lead === null) return null;
    if (seats.has(lead)) return lead;
    const byName = [...seats.values()].filter((s) => s.name === lead);
    if (byName.length === 1) return byName[0]?.handle ?? null;
    const derived = deriveHandle(lead);
    return seats.has(derived) ? derived : null;
  };
  return {
    seats,
    units: pending.map((u) => ({ name: u.name, lead: leadHandle(u.lead), wikiSpace: u.wikiSpace })),
  };
}
