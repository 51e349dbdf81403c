/**
 * Seat placement: which `seats` node runs which agent seat. Each agent seat is a lease in
 * `svc_coord` (`seat.<handle>.lease`, the singleton-duty mechanics of actors/lease), so log order
 * decides every contended take. One timer per node renews every lease it holds and looks for free
 * seats; a KV watch on the lease keys sees a peer's release at once (a crashed peer's lease is taken
 * once it expired). Each `seats` node also keeps a member record (`seats.member.<node>`, rewritten
 * by the same timer; placement.members.ts) so nodes know how many share the seats.
 *
 * Spreading rule: a node takes a free seat at once while it holds fewer than its fair share,
 * ceil(agent seats / live `seats` nodes); above it, only once the seat stayed free for one lease
 * period (so a peer under its share gets it first, and a seat nobody else takes still runs).
 *
 * Balancing: a node holding more than its share while a live peer holds less (a node joined) hands
 * its excess over, once that has lasted a whole lease period (a peer flapping in and out moves
 * nothing): only idle seats, each host stopped before its lease is released so no two nodes run one
 * seat; the peer under its share takes it at once. A busy seat is tried again on the next tick.
 *
 * Fencing (DESIGN.md "A lease holder fences itself"): peers may take a seat once its lease expired by
 * their clock, whatever this node believes, so this node stops a seat by its own monotonic clock at
 * the last proof of its hold plus the ttl minus a margin (`fenceMarginMs`). A proof is a renewal or
 * take the store confirmed, dated when it was sent. The fence runs on its own timer, not behind a
 * renewal that may hang on a dead connection; `valid` is the same check made synchronously, so a
 * process resumed from a pause refuses a write before its timers had a chance to run.
 */
import { randomUUID } from 'node:crypto';
import type { KvEntry, Subscription } from '../../bus/index.js';
import type { DutyLease } from '../../schema/index.js';
import {
  acquireLease,
  answerHolder,
  decodeLease,
  holderGoneOver,
  leaseLive,
  releaseLease,
  renewLease,
  type Held,
} from '../lease/index.js';
import { trackMembers } from './placement.members.js';
import type { Placement, PlacementOptions } from './placement.types.js';
import { placementKeys, seatOfLeaseKey } from './placement.view.js';

export async function startPlacement(opts: PlacementOptions): Promise<Placement> {
  const log = opts.logger.child({ component: 'placement' });
  const now = opts.now ?? (() => new Date());
  const ttl = opts.ttlMs ?? 30_000;
  const renewEvery = opts.renewEveryMs ?? Math.max(1, Math.floor(ttl / 3));
  const margin = opts.fenceMarginMs ?? Math.floor(ttl / 6);
  if (margin >= ttl - renewEvery)
    throw new RangeError(`fence margin ${margin} ms leaves no renewal before the ${ttl} ms lease binds`);
  const monotonic = opts.monotonic ?? (() => performance.now());
  const instance = randomUUID();
  const kv = opts.coord;
  const admitted = opts.admitted ?? (() => true);
  const holderGone = opts.bus ? holderGoneOver(opts.bus) : undefined;
  let wanted = new Set<string>();
  const held = new Map<string, Held>();
  /** Per held seat: the monotonic instant its last confirmed take or renewal was sent. */
  const provenAt = new Map<string, number>();
  const fenceAt = (handle: string): number => (provenAt.get(handle) ?? -Infinity) + ttl - margin;
  /** The latest lease of every seat as the watch delivered it (ours included). */
  const view = new Map<string, DutyLease>();
  /** The store already shows a newer holder of a seat this node believes it holds. */
  const superseded = (handle: string): boolean => {
    const mine = held.get(handle)?.lease;
    const seen = view.get(handle);
    return (
      mine !== undefined &&
      seen !== undefined &&
      (seen.epoch > mine.epoch || (seen.epoch === mine.epoch && seen.instance !== mine.instance))
    );
  };
  const valid = (handle: string): boolean =>
    held.has(handle) && monotonic() < fenceAt(handle) && !superseded(handle);
  /** Since when a wanted seat is known to be free (ms). */
  const freeSince = new Map<string, number>();
  const members = trackMembers({ kv, nodeId: opts.nodeId, instance, ttl, log });
  const listeners: (() => void)[] = [];
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  /** Since when this node holds more than its share while a peer holds less (ms), or null. */
  let overSince: number | null = null;

  let chain: Promise<void> = Promise.resolve();
  const enqueue = (step: () => Promise<void>): Promise<void> => {
    const run = chain
      .then(step)
      .catch((error: unknown) => log.error({ err: error }, 'placement step failed'));
    chain = run;
    return run;
  };
  const changed = (): void => {
    for (const listener of listeners) listener();
  };
  const forget = (handle: string): void => {
    held.delete(handle);
    provenAt.delete(handle);
  };

  let fenceTimer: NodeJS.Timeout | null = null;
  /** Forgets a held seat and stops its host at once (the host must not act as the holder any more). */
  const fenceSeat = (handle: string, why: string): void => {
    const at = monotonic();
    const epoch = held.get(handle)?.lease.epoch;
    const unproven = Math.round(at - (provenAt.get(handle) ?? at));
    forget(handle);
    log.warn(
      { seat: handle, epoch, unproven_ms: unproven, ttl_ms: ttl, margin_ms: margin },
      `seat fenced: ${why}; the seat stops here`,
    );
    opts.hosts?.fence?.(handle);
  };
  /** Stops every held seat past its fence now; re-arms for the next one. */
  const fence = (): void => {
    fenceTimer = null;
    if (stopped) return;
    const at = monotonic();
    let fenced = false;
    for (const handle of [...held.keys()]) {
      if (at < fenceAt(handle)) continue;
      fenceSeat(handle, 'its lease could not be renewed in time');
      fenced = true;
    }
    if (fenced) changed();
    armFence();
  };
  /** One timer for the earliest fence among the held seats. */
  const armFence = (): void => {
    if (fenceTimer) clearTimeout(fenceTimer);
    fenceTimer = null;
    if (stopped || held.size === 0) return;
    let earliest = Infinity;
    for (const handle of held.keys()) earliest = Math.min(earliest, fenceAt(handle));
    fenceTimer = setTimeout(fence, Math.max(0, Math.ceil(earliest - monotonic())));
    fenceTimer.unref();
  };

  /** Takes the free wanted seats the spreading rule allows; true when one was won. */
  const take = async (): Promise<boolean> => {
    // A duplicate of this node id runs: neither process takes a seat until the other's record expired.
    if (!admitted()) return false;
    const sentAt = monotonic();
    const at = now();
    const nowMs = at.getTime();
    const share = Math.ceil(wanted.size / members.live(nowMs));
    let won = false;
    for (const handle of wanted) {
      if (stopped) break;
      if (held.has(handle)) continue;
      const lease = view.get(handle);
      if (lease && leaseLive(lease, nowMs) && lease.node !== opts.nodeId) {
        freeSince.delete(handle);
        continue;
      }
      if (!freeSince.has(handle))
        freeSince.set(handle, lease ? Math.min(nowMs, new Date(lease.expires_at).getTime()) : nowMs);
      const eager = held.size < share;
      const patient = nowMs - freeSince.get(handle)! >= ttl;
      if (!eager && !patient) continue;
      const result = await acquireLease(
        kv,
        placementKeys.seat(handle),
        { duty: `seat.${handle}`, node: opts.nodeId, instance },
        at,
        ttl,
        holderGone ? { holderGone } : {},
      );
      if (!result.won) continue;
      held.set(handle, result.held);
      provenAt.set(handle, sentAt);
      armFence();
      freeSince.delete(handle);
      won = true;
      log.info({ seat: handle, epoch: result.held.lease.epoch }, 'seat lease taken');
    }
    return won;
  };

  /** Renews every held lease; a refused renewal loses the seat. True when one was lost. */
  const renewAll = async (): Promise<boolean> => {
    const sentAt = monotonic();
    const at = now();
    let lost = false;
    await Promise.all(
      [...held].map(async ([handle, mine]) => {
        const next = await renewLease(kv, placementKeys.seat(handle), mine, at, ttl).catch(
          (error: unknown) => {
            log.error({ err: error, seat: handle }, 'seat lease renewal failed');
            return mine;
          },
        );
        // Fenced or handed over meanwhile: a late answer proves nothing now.
        if (stopped || held.get(handle) !== mine) return;
        if (next === mine) return;
        if (next) {
          held.set(handle, next);
          provenAt.set(handle, sentAt);
          armFence();
          return;
        }
        forget(handle);
        lost = true;
        log.warn({ seat: handle }, 'seat lease lost');
      }),
    );
    return lost;
  };

  /** Hands idle seats over while this node holds more than its share and a peer less; true when one went. */
  const balance = async (): Promise<boolean> => {
    const hosts = opts.hosts;
    if (hosts === undefined) return false;
    const nowMs = now().getTime();
    const share = Math.ceil(wanted.size / members.live(nowMs));
    let excess = held.size - share;
    if (excess <= 0 || members.peersUnder(share, nowMs, view.values()) === 0) {
      overSince = null;
      return false;
    }
    overSince ??= nowMs;
    if (nowMs - overSince < ttl) return false;
    let moved = false;
    for (const [handle, mine] of [...held].sort(([a], [b]) => (a < b ? 1 : -1))) {
      if (excess <= 0 || stopped) break;
      if (!hosts.idle(handle)) continue;
      // Out of `held` first: a follow of the held set meanwhile neither keeps nor respawns the host.
      forget(handle);
      await hosts.stop(handle);
      await releaseLease(kv, placementKeys.seat(handle), mine, now()).catch((error: unknown) =>
        log.error({ err: error, seat: handle }, 'seat lease release failed'),
      );
      excess -= 1;
      moved = true;
      log.info({ seat: handle, share }, 'seat handed over to balance the fleet');
    }
    if (excess <= 0) overSince = null;
    return moved;
  };

  const tick = async (): Promise<void> => {
    if (stopped) return;
    await members.put(now());
    const lost = await renewAll();
    const won = await take();
    const moved = await balance();
    await members.sweep(now().getTime());
    if (lost || won || moved) changed();
  };
  const arm = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      void enqueue(tick).then(arm);
    }, renewEvery);
    timer.unref();
  };
  let kicked = false;
  const kick = (): void => {
    if (kicked || stopped) return;
    kicked = true;
    void enqueue(async () => {
      kicked = false;
      if (stopped) return;
      if (await take()) changed();
    });
  };

  const onSeatEntry = (entry: KvEntry): void => {
    const handle = seatOfLeaseKey(entry.key);
    if (handle === null) return;
    const lease = entry.operation === 'delete' ? null : decodeLease(entry.value);
    if (lease) view.set(handle, lease);
    else view.delete(handle);
    if (held.has(handle) && superseded(handle) && !stopped) {
      // A peer holds a newer epoch (this node's lease lapsed unseen): stop now, not at the next renewal.
      fenceSeat(handle, `node ${lease?.node ?? '?'} holds epoch ${lease?.epoch ?? '?'}`);
      armFence();
      changed();
      return;
    }
    if (!wanted.has(handle) || held.has(handle)) return;
    // A release (or a deleted lease) frees the seat now; a live peer lease needs nothing.
    if (lease === null || !leaseLive(lease, now().getTime())) kick();
  };
  const onMemberEntry = (entry: KvEntry): void => {
    // A peer left: its share grows everyone's.
    if (members.apply(entry)) kick();
  };
  const subs: Subscription[] = [
    ...(opts.bus ? [answerHolder(opts.bus, instance)] : []),
    await kv.watch(onMemberEntry, { key: placementKeys.members }),
    await kv.watch(onSeatEntry, { key: placementKeys.seats }),
  ];
  await enqueue(() => members.put(now()));
  arm();

  return {
    want: (handles) =>
      enqueue(async () => {
        if (stopped) return;
        wanted = new Set(handles);
        let dropped = false;
        for (const [handle, mine] of [...held]) {
          if (wanted.has(handle)) continue;
          forget(handle);
          dropped = true;
          await releaseLease(kv, placementKeys.seat(handle), mine, now());
        }
        for (const handle of [...freeSince.keys()]) if (!wanted.has(handle)) freeSince.delete(handle);
        if ((await take()) || dropped) changed();
      }),
    held: () => [...held.keys()].filter(valid),
    epoch: (handle) => (valid(handle) ? (held.get(handle)?.lease.epoch ?? null) : null),
    unproven: () => {
      const at = monotonic();
      const out: Record<string, number> = {};
      for (const handle of held.keys()) {
        const since = at - (provenAt.get(handle) ?? at);
        if (since > renewEvery + Math.min(1000, margin)) out[handle] = Math.round(since / 100) / 10;
      }
      return out;
    },
    onChange: (listener) => {
      listeners.push(listener);
    },
    stop: async (stopOpts) => {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      if (fenceTimer) clearTimeout(fenceTimer);
      fenceTimer = null;
      await chain;
      for (const sub of subs) await sub.stop();
      if (stopOpts?.release ?? true) {
        // The member record goes first, so peers count one node fewer when they take the seats.
        await members.remove();
        const at = now();
        await Promise.all(
          [...held].map(([handle, mine]) =>
            releaseLease(kv, placementKeys.seat(handle), mine, at).catch((error: unknown) =>
              log.error({ err: error, seat: handle }, 'seat lease release failed'),
            ),
          ),
        );
      }
      held.clear();
      provenAt.clear();
    },
  };
}
