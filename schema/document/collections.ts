/**
 * Which lists of the company document hold entities, and how their items are recognised: seats by
 * handle (root `roles` and every unit's `roles`), units by name (`units`, `children`), tool servers by
 * name (`mcp_servers`). Other lists are plain values and compare whole.
 */
import { nameIdentity, seatIdentity } from './identity.js';
import { isArray, type Segment } from './json.js';

export type Identity = (item: unknown) => string | null;

export function listIdentity(segments: ReadonlyArray<Segment>): Identity | null {
  const key = segments[segments.length - 1];
  if (key === 'roles') return seatIdentity;
  if (key === 'units' || key === 'children' || key === 'mcp_servers') return nameIdentity;
  return null;
}

/** Pairs each item of `incoming` with its counterpart in `stored` (by identity, else by index). */
export function pairItems(segments: ReadonlyArray<Segment>, incoming: unknown[], stored: unknown): unknown[] {
  const storedItems = isArray(stored) ? stored : [];
  const identity = listIdentity(segments);
  if (!identity) return incoming.map((_, i) => storedItems[i]);
  const byId = new Map<string, unknown>();
  for (const item of storedItems) {
    const id = identity(item);
    if (id !== null && !byId.has(id)) byId.set(id, item);
  }
  return incoming.map((item) => {
    const id = identity(item);
    return id === null ? undefined : byId.get(id);
  });
}
