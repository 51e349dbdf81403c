/**
 * The people of a company document as the webhook side needs them: every seat with its kind, contacts
 * and own integration credentials, and every unit with its effective lead and wiki space. Read from
 * the validated document's one walk; missing pieces read as null.
 */
import type { Company } from './company/company.schema.js';
import { walkCompany, type CompanySeat } from './company/walk.js';
import { deriveHandle } from './document/index.js';

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

function seatOf(found: CompanySeat): DirectorySeat {
  const { seat } = found;
  const integrations: Record<string, Readonly<Record<string, unknown>>> = {};
  for (const [k, v] of Object.entries(seat.integrations ?? {})) if (v !== undefined) integrations[k] = v;
  const contacts: Record<string, string> = {};
  for (const [k, v] of Object.entries(seat.contact ?? {})) if (typeof v === 'string') contacts[k] = v;
  return {
    handle: found.handle,
    name: seat.name,
    kind: found.kind,
    email: seat.email ?? null,
    contacts,
    integrations,
    // A seat's own `unit` as written, else the unit whose `roles` hold it.
    unit: seat.unit ?? (found.nested ? (found.unit?.name ?? null) : null),
  };
}

export function seatDirectory(company: Company): SeatDirectory {
  const walk = walkCompany(company);
  const seats = new Map<string, DirectorySeat>(walk.seats.map((s) => [s.handle, seatOf(s)]));
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
    units: walk.units.map((u) => ({
      name: u.name,
      lead: leadHandle(u.lead),
      wikiSpace: u.unit.integrations?.wiki?.space ?? null,
    })),
  };
}
