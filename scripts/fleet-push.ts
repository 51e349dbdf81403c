/**
 * The socket's `fleet` push (ops/events.md "Snapshot and WebSocket"): a marker, data null, sent when this node's
 * fleet view changes in a way `GET /fleet` shows — a node joins or leaves (its presence written, deleted or
 * run out), a seat lease or a duty changes holder or epoch (or is taken or let go), a node's applied epoch,
 * posture, alarms, roles, labels, version or address change, or the view stops (or starts again) vouching
 * for itself.
 * Renewals alone push nothing. The marker carries no fleet detail: the fleet is guarded and the socket may
 * be anonymous, so a dashboard reads the `fleet` question with its token when told.
 */
import type { FleetView } from '../actors/index.js';
import type { PushMode, SnapshotSection } from '../projections/index.js';
import type { FleetAnswer } from '../schema/index.js';

/** At most one push per this window: a burst of changes (a node's leases all moving) is one push. */
export const FLEET_PUSH_DEBOUNCE_MS = 250;

/** What of an answer the push follows: everything `GET /fleet` shows but the renewal and expiry instants. */
export function fleetFingerprint(answer: FleetAnswer): string {
  const holder = (lease: { node: string; epoch: number }) => [lease.node, lease.epoch];
  return JSON.stringify([
    answer.complete,
    answer.nodes.map(({ renewed_at: _renewed, expires_at: _expires, ...node }) => node),
    Object.entries(answer.seats).map(([seat, lease]) => [seat, ...holder(lease)]),
    Object.entries(answer.duties).map(([duty, lease]) => [duty, ...holder(lease)]),
    answer.expired.map((e) => e.node),
  ]);
}

/** The soonest instant after `nowMs` at which a record the view holds runs out (a node or a lease leaves). */
function nextExpiry(view: FleetView, nowMs: number): number | null {
  let soonest: number | null = null;
  const consider = (at: string): void => {
    const ms = new Date(at).getTime();
    if (ms > nowMs && (soonest === null || ms < soonest)) soonest = ms;
  };
  for (const { record } of view.presences().values()) consider(record.expires_at);
  for (const lease of view.seats().values()) consider(lease.expires_at);
  for (const lease of view.duties().values()) consider(lease.expires_at);
  return soonest;
}

export interface FleetPush extends SnapshotSection {
  stop(): void;
}

/**
 * The `fleet` section: never in the snapshot (its value is null), it pushes the marker. It looks again
 * `FLEET_PUSH_DEBOUNCE_MS` after a watch delivers anything, and when the soonest record runs out (an expiry
 * changes the answer with nothing written), and pushes when the fingerprint moved.
 */
export function fleetPush(opts: {
  readonly view: FleetView;
  readonly answer: () => FleetAnswer;
  readonly debounceMs?: number;
}): FleetPush {
  const debounceMs = opts.debounceMs ?? FLEET_PUSH_DEBOUNCE_MS;
  const subscribers = new Set<(data: unknown, mode: PushMode) => void>();
  let last = fleetFingerprint(opts.answer());
  let pending: NodeJS.Timeout | null = null;
  let expiry: NodeJS.Timeout | null = null;
  let stopped = false;

  const look = (): void => {
    pending = null;
    if (stopped) return;
    const now = fleetFingerprint(opts.answer());
    if (now !== last) {
      last = now;
      for (const push of subscribers) push(null, 'replace');
    }
    armExpiry();
  };
  const schedule = (): void => {
    if (stopped || pending !== null) return;
    pending = setTimeout(look, debounceMs);
    pending.unref();
  };
  const armExpiry = (): void => {
    if (expiry !== null) clearTimeout(expiry);
    expiry = null;
    const nowMs = Date.now();
    const at = nextExpiry(opts.view, nowMs);
    if (at === null) return;
    // One millisecond past the instant: a record is live while its expiry is later than now.
    expiry = setTimeout(schedule, at - nowMs + 1);
    expiry.unref();
  };
  const unwatch = opts.view.onChange(schedule);
  armExpiry();

  return {
    name: 'fleet',
    current: () => null,
    subscribe(push) {
      subscribers.add(push);
      return () => subscribers.delete(push);
    },
    stop() {
      stopped = true;
      unwatch();
      if (pending !== null) clearTimeout(pending);
      if (expiry !== null) clearTimeout(expiry);
      subscribers.clear();
    },
  };
}
