/**
 * The entities the entity routes address: seats (`roles`, anywhere in the tree, by handle), units
 * (anywhere, by name), LLM providers (`providers.llm` map key) and tool servers (`mcp_servers`, by name).
 */
import { deriveHandle, nameIdentity, seatIdentity } from './identity.js';
import { clone, isArray, isRecord, type JsonObject, type Segment } from './json.js';

export type EntityKind = 'roles' | 'units' | 'llm-providers' | 'mcp-servers';

interface Found {
  readonly value: unknown;
  readonly segments: Segment[];
}

/** Every seat and unit in document order, with where it sits. */
function* walkTree(
  doc: JsonObject,
): Generator<{ kind: 'roles' | 'units'; value: unknown; segments: Segment[] }> {
  const roles = doc['roles'];
  if (isArray(roles))
    for (const [i, seat] of roles.entries()) yield { kind: 'roles', value: seat, segments: ['roles', i] };
  function* units(
    list: unknown,
    at: Segment[],
  ): Generator<{ kind: 'roles' | 'units'; value: unknown; segments: Segment[] }> {
    if (!isArray(list)) return;
    for (const [i, unit] of list.entries()) {
      const here = [...at, i];
      yield { kind: 'units', value: unit, segments: here };
      if (!isRecord(unit)) continue;
      const seats = unit['roles'];
      if (isArray(seats))
        for (const [j, seat] of seats.entries())
          yield { kind: 'roles', value: seat, segments: [...here, 'roles', j] };
      yield* units(unit['children'], [...here, 'children']);
    }
  }
  yield* units(doc['units'], ['units']);
}

export function findEntity(doc: unknown, kind: EntityKind, id: string): Found | null {
  if (!isRecord(doc)) return null;
  if (kind === 'llm-providers') {
    const llm = isRecord(doc['providers']) ? doc['providers']['llm'] : undefined;
    return isRecord(llm) && Object.hasOwn(llm, id)
      ? { value: llm[id], segments: ['providers', 'llm', id] }
      : null;
  }
  if (kind === 'mcp-servers') {
    const servers = doc['mcp_servers'];
    if (!isArray(servers)) return null;
    const i = servers.findIndex((s) => nameIdentity(s) === id);
    return i < 0 ? null : { value: servers[i], segments: ['mcp_servers', i] };
  }
  const identity = kind === 'roles' ? seatIdentity : nameIdentity;
  for (const entry of walkTree(doc)) {
    if (entry.kind === kind && identity(entry.value) === id)
      return { value: entry.value, segments: entry.segments };
  }
  return null;
}

/** Every entity of one kind in document order, with its identity and where it sits (the dashboard's entity views). */
export function listEntities(
  doc: unknown,
  kind: EntityKind,
): Array<{ readonly id: string; readonly value: unknown; readonly segments: Segment[] }> {
  if (!isRecord(doc)) return [];
  if (kind === 'llm-providers') {
    const llm = isRecord(doc['providers']) ? doc['providers']['llm'] : undefined;
    return isRecord(llm)
      ? Object.entries(llm).map(([id, value]) => ({ id, value, segments: ['providers', 'llm', id] }))
      : [];
  }
  if (kind === 'mcp-servers') {
    const servers = doc['mcp_servers'];
    if (!isArray(servers)) return [];
    return servers.flatMap((value, i) => {
      const id = nameIdentity(value);
      return id === null ? [] : [{ id, value, segments: ['mcp_servers', i] }];
    });
  }
  const identity = kind === 'roles' ? seatIdentity : nameIdentity;
  const out: Array<{ id: string; value: unknown; segments: Segment[] }> = [];
  for (const entry of walkTree(doc)) {
    const id = entry.kind === kind ? identity(entry.value) : null;
    if (id !== null) out.push({ id, value: entry.value, segments: entry.segments });
  }
  return out;
}

/** A new document with the entity replaced in place, or (providers, tool servers) added last. */
/** `seat` with `handle` right after `name` (the stored document's normal form). */
function withHandle(seat: Record<string, unknown>, handle: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(seat)) {
    out[key] = value;
    if (key === 'name') out['handle'] = handle;
  }
  return 'handle' in out ? out : { handle, ...out };
}

export function spliceEntity(doc: unknown, kind: EntityKind, id: string, value: unknown): unknown {
  const out = isRecord(doc) ? clone(doc) : {};
  const found = findEntity(out, kind, id);
  const entity =
    kind === 'mcp-servers' && isRecord(value) && value['name'] === undefined
      ? { name: id, ...value }
      : kind === 'roles' && found && isRecord(value) && value['handle'] === undefined
        ? withHandle(value, id) // the seat at the path stays that seat, whatever its name derives
        : value;
  if (found) {
    let parent: unknown = out;
    for (const segment of found.segments.slice(0, -1))
      parent = (parent as Record<string | number, unknown>)[segment];
    (parent as Record<string | number, unknown>)[found.segments[found.segments.length - 1] as Segment] =
      clone(entity);
    return out;
  }
  if (kind === 'llm-providers') {
    const providers = isRecord(out['providers']) ? out['providers'] : (out['providers'] = {});
    const llm = isRecord(providers['llm']) ? providers['llm'] : (providers['llm'] = {});
    llm[id] = clone(entity);
    return out;
  }
  if (kind === 'mcp-servers') {
    const servers = isArray(out['mcp_servers']) ? out['mcp_servers'] : (out['mcp_servers'] = []);
    servers.push(clone(entity));
    return out;
  }
  throw new RangeError(`${kind} entries are not created by an entity write`);
}

/**
 * The path id is the identity. A seat body that names another handle, or omits `handle` while its
 * name derives another one and is not the stored seat's (`stored`) own name, does not match; a unit body with another name does not match; a provider
 * body carries no key; a tool-server body without `name` takes the path's.
 */
export function entityIdentityMatches(
  kind: EntityKind,
  id: string,
  body: unknown,
  stored?: unknown,
): boolean {
  if (!isRecord(body)) return true;
  switch (kind) {
    case 'roles': {
      if (typeof body['handle'] === 'string') return body['handle'] === id;
      if (typeof body['name'] !== 'string') return true;
      // The stored seat's own name matches even when it derives another handle (written by hand, or by a
      // build that spelled names otherwise).
      return deriveHandle(body['name']) === id || (isRecord(stored) && stored['name'] === body['name']);
    }
    case 'units':
    case 'mcp-servers':
      return body['name'] === undefined || body['name'] === id;
    case 'llm-providers':
      return true;
  }
}
