/**
 * The fleet as one node reads it, kept current in the background by KV watches on `svc_coord`:
 * presence leases (`presence.<node>`) and singleton duties (`duty.<name>`). Probes and `GET /fleet`
 * answer from it without asking the bus (spec "Limits": probe coordination budget).
 */
import type { Kv, KvEntry, Subscription } from '../../bus/index.js';
import { NodePresence, type DutyLease, type FleetAnswer } from '../../schema/index.js';
import { decodeLease, leaseLive } from '../lease/index.js';
import { dutyKey } from '../scheduler/index.js';
import { placementKeys } from '../seat/index.js';

export const presenceKeys = {
  node: (node: string): string => `presence.${node}`,
  all: 'presence.>',
};
const presencePrefix = presenceKeys.node('');
const dutyPrefix = dutyKey('');
/** The handle of a `seat.<handle>.lease` key, or null. */
const seatOf = (key: string): string | null => /^seat\.([^.]+)\.lease$/.exec(key)?.[1] ?? null;

/** One stored presence record as the watch delivered it. */
export interface PresenceEntry {
  readonly node: string;
  /** Null when the record was deleted (or does not parse). */
  readonly record: NodePresence | null;
  readonly revision: number;
}

export interface FleetView {
  /** True once both watches delivered what was stored. */
  ready(): boolean;
  /** Every stored presence record, live or expired. */
  presences(): ReadonlyMap<string, { readonly record: NodePresence; readonly revision: number }>;
  /** Presence records not expired at `nowMs`. */
  live(nowMs: number): NodePresence[];
  /**
   * The live processes writing a node's id, earliest started first: more than one only for a duplicate
   * node id. A process whose last record predates another's first (it crashed and was restarted) is not one.
   */
  processes(node: string, nowMs: number): NodePresence[];
  /** The latest revision the view saw for a node's presence key (0 when none). */
  seenRevision(node: string): number;
  /** Called for every presence change, in order; returns the unsubscribe. */
  onPresence(listener: (entry: PresenceEntry) => void): () => void;
  /** Called after every entry any of the watches delivers (presence, duty or seat lease); returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  /** Duty leases as stored: duty name → lease. */
  duties(): ReadonlyMap<string, DutyLease>;
  /** Seat leases as stored (the placement table): handle → lease. */
  seats(): ReadonlyMap<string, DutyLease>;
  stop(): Promise<void>;
}

const decoder = new TextDecoder();

function decodePresence(value: Uint8Array): NodePresence | null {
  try {
    const parsed = NodePresence.safeParse(JSON.parse(decoder.decode(value)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function watchFleet(coord: Kv): Promise<FleetView> {
  const presences = new Map<string, { record: NodePresence; revision: number }>();
  // Per node id, every instance seen writing it: its newest record and its first and last revisions.
  const writers = new Map<string, Map<string, { record: NodePresence; first: number; last: number }>>();
  const seen = new Map<string, number>();
  const duties = new Map<string, DutyLease>();
  const seats = new Map<string, DutyLease>();
  const listeners = new Set<(entry: PresenceEntry) => void>();
  const changeListeners = new Set<() => void>();
  let ready = false;
  const changed = (): void => {
    for (const listener of changeListeners) listener();
  };

  const onPresenceEntry = (entry: KvEntry): void => {
    if (!entry.key.startsWith(presencePrefix)) return;
    const node = entry.key.slice(presencePrefix.length);
    const record = entry.operation === 'delete' ? null : decodePresence(entry.value);
    const ofNode =
      writers.get(node) ?? new Map<string, { record: NodePresence; first: number; last: number }>();
    writers.set(node, ofNode);
    if (record) {
      const known = ofNode.get(record.instance);
      ofNode.set(record.instance, { record, first: known?.first ?? entry.revision, last: entry.revision });
    } else {
      // A removed record: its writer stopped (or was removed); another writer shows again when it renews.
      const removed = presences.get(node)?.record.instance;
      if (removed !== undefined) ofNode.delete(removed);
    }
    if (record) presences.set(node, { record, revision: entry.revision });
    else presences.delete(node);
    seen.set(node, Math.max(seen.get(node) ?? 0, entry.revision));
    for (const listener of listeners) listener({ node, record, revision: entry.revision });
    changed();
  };
  const onDutyEntry = (entry: KvEntry): void => {
    if (!entry.key.startsWith(dutyPrefix)) return;
    const lease = entry.operation === 'delete' ? null : decodeLease(entry.value);
    const duty = entry.key.slice(dutyPrefix.length);
    if (lease) duties.set(duty, lease);
    else duties.delete(duty);
    changed();
  };
  const onSeatEntry = (entry: KvEntry): void => {
    const handle = seatOf(entry.key);
    if (handle === null) return;
    const lease = entry.operation === 'delete' ? null : decodeLease(entry.value);
    if (lease) seats.set(handle, lease);
    else seats.delete(handle);
    changed();
  };
  const subs: Subscription[] = [
    await coord.watch(onPresenceEntry, { key: presenceKeys.all }),
    await coord.watch(onDutyEntry, { key: dutyKey('>') }),
    await coord.watch(onSeatEntry, { key: placementKeys.seats }),
  ];
  ready = true;

  return {
    ready: () => ready,
    presences: () => presences,
    live: (nowMs) =>
      [...presences.values()]
        .map((p) => p.record)
        .filter((record) => new Date(record.expires_at).getTime() > nowMs),
    processes: (node, nowMs) => {
      const ofNode = [...(writers.get(node)?.values() ?? [])];
      for (const w of ofNode) {
        if (new Date(w.record.expires_at).getTime() <= nowMs) writers.get(node)?.delete(w.record.instance);
      }
      return ofNode
        .filter((w) => new Date(w.record.expires_at).getTime() > nowMs)
        .filter((w) => !ofNode.some((other) => other !== w && other.first > w.last))
        .map((w) => w.record)
        .sort((a, b) =>
          a.started_at !== b.started_at
            ? Date.parse(a.started_at) - Date.parse(b.started_at)
            : a.instance < b.instance
              ? -1
              : 1,
        );
    },
    seenRevision: (node) => seen.get(node) ?? 0,
    onPresence: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onChange: (listener) => {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    duties: () => duties,
    seats: () => seats,
    stop: async () => {
      ready = false;
      listeners.clear();
      changeListeners.clear();
      for (const sub of subs) await sub.stop();
    },
  };
}

const byKey = <T>(entries: Iterable<[string, T]>): Record<string, T> =>
  Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * `GET /fleet` from the view. A seat or duty held by a node whose presence expired is still listed under `seats`/`duties`: its
 * lease binds until it expires, whoever holds it.
 */
export function fleetAnswer(input: {
  readonly node: string;
  readonly now: Date;
  readonly view: FleetView;
  readonly complete: boolean;
}): FleetAnswer {
  const nowMs = input.now.getTime();
  const seats = [...input.view.seats()].filter(([, lease]) => leaseLive(lease, nowMs));
  const duties = [...input.view.duties()].filter(([, lease]) => leaseLive(lease, nowMs));
  const heldBy = (node: string, leases: [string, DutyLease][]): string[] =>
    leases
      .filter(([, lease]) => lease.node === node)
      .map(([name]) => name)
      .sort();
  const shown = (lease: DutyLease) => ({
    node: lease.node,
    epoch: lease.epoch,
    expires_at: lease.expires_at,
  });
  const nodes = input.view
    .live(nowMs)
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0))
    .map((stored) => {
      // Two processes writing one id take turns at its key: the row keeps to the earliest started.
      const [record = stored, ...others] = input.view.processes(stored.node, nowMs);
      return { record, others };
    })
    .map(({ record, others }) => ({
      id: record.node,
      roles: record.roles,
      labels: record.labels,
      version: record.version,
      started_at: record.started_at,
      applied_epoch: record.applied_epoch,
      posture: record.posture,
      alarms: record.alarms,
      store: record.store,
      sandbox: record.sandbox,
      api: record.api,
      renewed_at: record.renewed_at,
      expires_at: record.expires_at,
      seats: heldBy(record.node, seats),
      duties: heldBy(record.node, duties),
      instance: record.instance,
      host: record.host,
      pid: record.pid,
      ...(others.length > 0
        ? {
            duplicates: others.map((other) => ({
              instance: other.instance,
              host: other.host,
              pid: other.pid,
              api: other.api,
              started_at: other.started_at,
              renewed_at: other.renewed_at,
              expires_at: other.expires_at,
            })),
          }
        : {}),
    }));
  const expired = [...input.view.presences().values()]
    .map((p) => p.record)
    .filter((record) => new Date(record.expires_at).getTime() <= nowMs)
    .map((record) => ({ node: record.node, expired_at: record.expires_at }))
    .sort((a, b) => (a.node < b.node ? -1 : 1));
  return {
    node: input.node,
    read_at: input.now.toISOString(),
    complete: input.complete,
    nodes,
    seats: byKey(seats.map(([handle, lease]) => [handle, shown(lease)])),
    duties: byKey(duties.map(([duty, lease]) => [duty, shown(lease)])),
    expired,
  };
}
