/**
 * `POST /fleet/broker/remove/{node}`: forgets a node that left the fleet — its presence record and its
 * seats member record. Read straight from the store (not the background view): an operator's removal
 * decides on what is stored now. Refused while the node holds a live lease (presence, seat or duty)
 * unless forced; even forced, a live seat or duty lease is never cut short, because the node may still
 * be running it (a paused process): peers take it when it expires, as they would after a crash.
 */
import { KvConflictError, type Kv } from '../../bus/index.js';
import { NodePresence, type LiveLease, type NodeRemoval } from '../../schema/index.js';
import { decodeLease, leaseLive } from '../lease/index.js';
import { dutyKey } from '../scheduler/index.js';
import { placementKeys } from '../seat/index.js';
import { presenceKeys } from './fleet.view.js';

const decoder = new TextDecoder();

function parsePresence(value: Uint8Array): NodePresence | null {
  try {
    const parsed = NodePresence.safeParse(JSON.parse(decoder.decode(value)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

interface NamedLease {
  readonly kind: 'seat' | 'duty';
  readonly name: string;
  readonly expires: string;
  readonly live: boolean;
}

/** Every seat and duty lease naming `node`, live or not. */
async function leasesOf(coord: Kv, node: string, nowMs: number): Promise<NamedLease[]> {
  const out: NamedLease[] = [];
  const scan = async (
    kind: 'seat' | 'duty',
    filter: string,
    nameOf: (key: string) => string,
  ): Promise<void> => {
    for (const key of await coord.keys(filter)) {
      const entry = await coord.get(key);
      const lease = entry ? decodeLease(entry.value) : null;
      if (lease?.node !== node) continue;
      out.push({ kind, name: nameOf(key), expires: lease.expires_at, live: leaseLive(lease, nowMs) });
    }
  };
  await scan('seat', placementKeys.seats, (key) => key.replace(/^seat\./, '').replace(/\.lease$/, ''));
  await scan('duty', dutyKey('>'), (key) => key.slice(dutyKey('').length));
  return out;
}

export async function removeNode(opts: {
  readonly coord: Kv;
  readonly node: string;
  readonly force: boolean;
  readonly now?: () => Date;
}): Promise<NodeRemoval> {
  const { coord, node, force } = opts;
  const nowMs = (opts.now ?? (() => new Date()))().getTime();
  const presenceKey = presenceKeys.node(node);
  const memberKey = placementKeys.member(node);
  const [presenceEntry, memberEntry, leases] = await Promise.all([
    coord.get(presenceKey),
    coord.get(memberKey),
    leasesOf(coord, node, nowMs),
  ]);
  const presence = presenceEntry ? parsePresence(presenceEntry.value) : null;
  if (presenceEntry === null && memberEntry === null && leases.length === 0) return { outcome: 'unknown' };
  const live: LiveLease[] = [
    ...(presence && new Date(presence.expires_at).getTime() > nowMs
      ? [{ kind: 'presence' as const, name: node, expires_at: presence.expires_at }]
      : []),
    ...leases.filter((l) => l.live).map((l) => ({ kind: l.kind, name: l.name, expires_at: l.expires })),
  ];
  if (live.length > 0 && !force) return { outcome: 'live', leases: live };

  const deleted: string[] = [];
  for (const [key, entry] of [
    [presenceKey, presenceEntry],
    [memberKey, memberEntry],
  ] as const) {
    if (entry === null) continue;
    try {
      // Unforced: only the record read, so a node that wrote meanwhile (it is back) keeps its record.
      await coord.delete(key, force ? {} : { expectedRevision: entry.revision });
      deleted.push(key);
    } catch (error) {
      if (!(error instanceof KvConflictError)) throw error;
      // The node wrote again since it was read: it is back.
      const again = await coord.get(presenceKey);
      const record = again ? parsePresence(again.value) : null;
      const expires = record?.expires_at ?? new Date(nowMs).toISOString();
      return { outcome: 'live', leases: [{ kind: 'presence', name: node, expires_at: expires }, ...live] };
    }
  }
  return { outcome: 'removed', answer: { removed: node, forced: force, deleted, leases: force ? live : [] } };
}
