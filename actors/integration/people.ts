/**
 * Who is who across vendors: a vendor identity resolved to a seat (contacts for humans, the agent's own
 * vendor identity for agents, then handle, then e-mail), and whether an event was caused by an agent's
 * own action. The agent identities are a documented choice (ops/webhooks.md "Own actions").
 */
import type { Company, DirectorySeat, Pipeline, SeatDirectory, VendorActor } from '../../schema/index.js';
import { seatDirectory } from '../../schema/index.js';
import { str } from './json-paths.js';

/** Marks the shared integration account agents act through (tracker-a, wiki): own, but no one seat. */
export const SHARED_ACCOUNT = '*';

export interface People {
  readonly directory: SeatDirectory;
  /** Per pipeline: lowercased vendor identity of an agent's own account -> its handle (or SHARED_ACCOUNT). */
  readonly own: ReadonlyMap<Pipeline, ReadonlyMap<string, string>>;
}

/** The human contact field that carries a person's identity on each pipeline. */
const contactField: Record<Pipeline, string | null> = {
  'tracker-a': 'tracker_a_account_id',
  wiki: 'tracker_a_account_id',
  chat: 'chat_user_id',
  'codehost-a': 'codehost_a_login',
  'codehost-b': 'codehost_b_username',
  'tracker-b': 'tracker_b_user_id',
  monitor: null,
};

const lower = (s: string): string => s.toLowerCase();

/** Who is who in the active (`${VAR}`-resolved) document; nobody on an unconfigured node (null). */
export function peopleFrom(resolved: Company | null): People {
  if (resolved === null) return { directory: { seats: new Map(), units: [] }, own: new Map() };
  const directory = seatDirectory(resolved);
  const integrations = resolved.integrations ?? {};
  const own = new Map<Pipeline, Map<string, string>>();
  const add = (p: Pipeline, identity: string | null, handle: string): void => {
    if (identity === null || identity === '') return;
    let m = own.get(p);
    if (!m) own.set(p, (m = new Map<string, string>()));
    m.set(lower(identity), handle);
  };
  const prefix = integrations.tracker_b?.provisioning?.username_prefix ?? '';
  for (const seat of directory.seats.values()) {
    if (seat.kind !== 'agent') continue;
    const slug = str(seat.integrations['codehost_a'], 'app_slug');
    if (slug) {
      add('codehost-a', `${slug}[bot]`, seat.handle);
      add('codehost-a', slug, seat.handle);
    }
    add('codehost-b', seat.handle, seat.handle);
    add('tracker-b', `${prefix}${seat.handle}`, seat.handle);
  }
  add('tracker-a', integrations.tracker_a?.email ?? null, SHARED_ACCOUNT);
  add('wiki', integrations.wiki?.email ?? null, SHARED_ACCOUNT);
  return { directory, own };
}

const identitiesOf = (a: VendorActor): string[] =>
  [a.id, a.login, a.email].filter((x): x is string => typeof x === 'string' && x !== '').map(lower);

function byContact(seats: Iterable<DirectorySeat>, field: string, ids: string[]): string | null {
  for (const seat of seats) {
    const value = seat.contacts[field];
    if (value !== undefined && ids.includes(lower(value))) return seat.handle;
  }
  return null;
}

/** The seat a vendor identity (or a bare mention token) names, or null. */
export function resolveSeat(people: People, pipeline: Pipeline, who: VendorActor | string): string | null {
  const a: VendorActor = typeof who === 'string' ? { id: who, login: who } : who;
  const ids = identitiesOf(a);
  if (ids.length === 0) return null;
  const own = people.own.get(pipeline);
  for (const id of ids) {
    const handle = own?.get(id);
    if (handle !== undefined && handle !== SHARED_ACCOUNT) return handle;
  }
  const seats = [...people.directory.seats.values()];
  const field = contactField[pipeline];
  const contact = field === null ? null : byContact(seats, field, ids);
  if (contact !== null) return contact;
  for (const id of ids) if (people.directory.seats.has(id)) return id;
  for (const seat of seats) if (seat.email !== null && ids.includes(lower(seat.email))) return seat.handle;
  return null;
}

/**
 * True when the trigger is an agent's own vendor identity (or the shared account agents act through:
 * its e-mail from the document, or `shared`, its lowercased identities as the vendor answered them).
 */
export function isOwnAction(
  people: People,
  pipeline: Pipeline,
  trigger: VendorActor | null,
  selfIds: readonly string[] = [],
  shared: readonly string[] = [],
): boolean {
  if (trigger === null) return false;
  if (pipeline === 'chat') return trigger.id !== undefined && selfIds.includes(trigger.id);
  const own = people.own.get(pipeline);
  return identitiesOf(trigger).some((id) => own?.has(id) === true || shared.includes(id));
}
