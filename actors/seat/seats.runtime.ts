/**
 * The seats of this node: the `org` subsystem of every apply hands the agent seats to placement
 * (placement.ts: one lease per seat in `svc_coord`), spawns a host for each seat this node holds,
 * terminates removed ones (a kind flipped to human counts as removed) and swaps changed definitions;
 * a seat taken or lost between applies (a peer left or died, a renewal was refused) starts or stops
 * its host at once. The `turn_engine` subsystem hands new limits to every seat (running turns keep
 * theirs). Human seats never get a host, an inbox consumer or a model call. Also answers the pause
 * and resume commands.
 */
import { isDeepStrictEqual } from 'node:util';
import { newEvent, publishEvent, Subjects, type Subscription } from '../../bus/index.js';
import { agentId, EventCategory, uuidv5, type Company } from '../../schema/index.js';
import type { SubsystemApplier } from '../config/index.js';
import { createBudget } from './budget.js';
import { spendBytes } from './spend-bytes.js';
import { turnLimits, type TurnLimits } from './seat.limits.js';
import { companyOf, type CompanyProfile } from './seat.profile.js';
import { startSeatHost } from './seat.host.js';
import { clearPausesOutside } from './seat.records.js';
import { unsettledSpendOf } from './seat.removed-spend.js';
import type { SeatHost } from './seat.host.types.js';
import { fenceOf, leaseHeaders } from '../lease/index.js';
import { startPlacement } from './placement.js';
import type { Placement } from './placement.types.js';
import { answerSeatCommands } from './placement.commands.js';
import type { TurnDeps } from './turn.deps.js';
import type { SeatsRuntime, SeatsRuntimeOptions } from './seats.runtime.types.js';

export function startSeatsRuntime(opts: SeatsRuntimeOptions): SeatsRuntime {
  const log = opts.logger.child({ component: 'seats' });
  const now = opts.now ?? (() => new Date());
  let company: CompanyProfile = companyOf(null);
  let limits: TurnLimits = turnLimits(undefined);
  const hosts = new Map<string, SeatHost>();
  /** Seats the applies removed whose journals' unsettled spend is not yet stored. */
  const removed = new Set<string>();
  /** The lease epoch each host acts under: a host of an earlier epoch is replaced, never kept. */
  const epochs = new WeakMap<SeatHost, number>();
  /** Set when placement stopped a host to hand its seat over (the held set changed under `follow`). */
  let handedOver = false;
  const budget = createBudget({
    bus: opts.bus,
    timezone: () => company.timezone,
    now: () => now().getTime(),
    logger: log,
  });
  // A spend record carries the lease epoch its seat is held under here (the fencing token).
  const spend: TurnDeps['spend'] = (record) => {
    const headers = leaseHeaders(placement?.epoch(record.handle) ?? undefined);
    return opts.bus.publish(Subjects.spend('llm'), spendBytes(record), {
      msgId: record.id,
      ...(headers ? { headers } : {}),
    });
  };
  const deps: Omit<TurnDeps, 'events'> = {
    node: opts.nodeId,
    llm: opts.llm,
    tools: opts.tools,
    budget,
    spend,
    now,
    ...(opts.tracer ? { tracer: opts.tracer } : {}),
    ...(opts.progressEveryMs !== undefined ? { progressEveryMs: opts.progressEveryMs } : {}),
  };
  let chain = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work);
    chain = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  };

  const placementReady: Promise<Placement> = startPlacement({
    coord: opts.coord,
    nodeId: opts.nodeId,
    logger: log,
    now,
    bus: opts.bus,
    ...(opts.admitted ? { admitted: opts.admitted } : {}),
    ...(opts.lease?.ttlMs !== undefined ? { ttlMs: opts.lease.ttlMs } : {}),
    ...(opts.lease?.renewEveryMs !== undefined ? { renewEveryMs: opts.lease.renewEveryMs } : {}),
    hosts: {
      idle: (handle) => {
        const state = hosts.get(handle)?.state() ?? 'idle';
        return !state.startsWith('working') && !state.startsWith('ending');
      },
      stop: async (handle) => {
        const host = hosts.get(handle);
        if (!host) return;
        hosts.delete(handle);
        handedOver = true;
        await host.stop();
        log.info({ seat: handle }, 'seat decommissioned');
      },
      fence: (handle) => {
        const host = hosts.get(handle);
        if (!host) return;
        hosts.delete(handle);
        handedOver = true;
        // The cut is synchronous inside stop(); what it awaits (the inbox close) may hang on a dead link.
        host
          .stop({ fenced: true })
          .catch((error: unknown) => log.error({ err: error, seat: handle }, 'fenced seat stop failed'));
      },
    },
    ...(opts.lease?.fenceMarginMs !== undefined ? { fenceMarginMs: opts.lease.fenceMarginMs } : {}),
  });
  // Unhandled until the first apply or stop awaits it.
  placementReady.catch((error: unknown) => log.error({ err: error }, 'seat placement did not start'));
  let placement: Placement | null = null;
  let held = new Set<string>();
  /** True once the first apply opened the inboxes: a seat taken later opens at once. */
  let opened = false;
  let stopped = false;
  /** Set by `drain`: seats taken meanwhile get no host, so no new turn starts here. */
  let draining = false;
  const seatListeners: (() => void)[] = [];

  const spawn = async (handle: string): Promise<SeatHost | null> => {
    const profile = company.seats.get(handle);
    const epoch = placement?.epoch(handle) ?? null;
    if (!profile || epoch === null) return null;
    const lease = placement;
    const host = await startSeatHost({
      bus: opts.bus,
      coord: opts.coord,
      turnsDone: opts.turnsDone,
      nodeId: opts.nodeId,
      logger: log,
      deps,
      company: () => company,
      limits,
      profile,
      ...(opts.pausedRetryMs !== undefined ? { pausedRetryMs: opts.pausedRetryMs } : {}),
      ...(opts.learning ? { learning: opts.learning } : {}),
      ...(opts.synthesis ? { synthesis: opts.synthesis } : {}),
      ...(opts.counterparty ? { counterparty: opts.counterparty } : {}),
      ...(opts.reflection ? { reflection: opts.reflection } : {}),
      ...(opts.episodes ? { episodes: opts.episodes } : {}),
      ...(opts.lease?.ttlMs !== undefined ? { inboxAckWaitMs: opts.lease.ttlMs } : {}),
      fence: fenceOf(`seat.${handle}`, epoch, () => lease?.epoch(handle) ?? null),
      leaseEpoch: epoch,
      ...(opts.localProgress ? { localProgress: opts.localProgress } : {}),
    });
    // Fenced (or taken again under a new epoch) while the host started: the fence found no host to
    // stop, so this one stops here; the next follow spawns the current epoch's, if any.
    if (placement?.epoch(handle) !== epoch) {
      await host.stop({ fenced: true });
      log.info({ seat: handle, epoch }, 'seat lease lost while its host started; not spawned');
      return null;
    }
    hosts.set(handle, host);
    epochs.set(host, epoch);
    log.info({ seat: handle, agent_id: profile.agent_id }, 'seat spawned');
    return host;
  };

  /** Stops the hosts of seats no longer wanted or held; spawns the held ones missing. */
  async function follow(): Promise<SeatHost[]> {
    held = new Set(placement?.held() ?? []);
    for (const [handle, host] of [...hosts]) {
      // A host of an earlier epoch refuses every wake by its fence: it goes, and the current one spawns.
      const kept = held.has(handle) && company.seats.has(handle);
      if (kept && epochs.get(host) === placement?.epoch(handle)) continue;
      hosts.delete(handle);
      await host.stop(kept ? { fenced: true } : undefined);
      log.info({ seat: handle }, 'seat decommissioned');
    }
    const spawned: SeatHost[] = [];
    for (const handle of held) {
      // A draining node starts no seat: a seat it takes now waits for the peer that resumes it.
      if (hosts.has(handle) || draining) continue;
      const host = await spawn(handle);
      if (host) spawned.push(host);
    }
    return spawned;
  }

  async function reconcile(document: Company | null): Promise<void> {
    const next = companyOf(document, opts.resolve);
    const prior = company;
    company = next;
    for (const handle of prior.seats.keys()) if (!next.seats.has(handle)) removed.add(handle);
    for (const handle of next.seats.keys()) removed.delete(handle);
    placement ??= await placementReady;
    // 1. seats gone from the company stop while their lease stands, so a cut turn is journaled (the
    //    drain's order), 2. placement takes (or releases) leases, 3. terminate and spawn, 4. swap changed
    //    definitions
    for (const [handle, host] of [...hosts]) {
      if (next.seats.has(handle)) continue;
      hosts.delete(handle);
      await host.stop();
      log.info({ seat: handle }, 'seat decommissioned');
    }
    await placement.want([...next.seats.keys()]);
    const spawned = new Set(await follow());
    for (const [handle, host] of hosts) {
      const profile = next.seats.get(handle);
      if (profile && !spawned.has(host) && !isDeepStrictEqual(prior.seats.get(handle), profile))
        host.update(profile);
    }
    notifySeats();
  }

  const notifySeats = (): void => {
    for (const listener of seatListeners) listener();
  };
  // Between applies: a seat taken or lost moves its host now.
  void placementReady.then((p) =>
    p.onChange(() => {
      void serial(async () => {
        if (stopped || draining || placement === null) return;
        const before = [...hosts.keys()].sort().join();
        const spawned = await follow();
        // A seat handed over left `hosts` before this ran: its tool servers still follow. A host replaced
        // under a new epoch leaves the same seats, but the new one still opens its inbox.
        if (before === [...hosts.keys()].sort().join() && !handedOver && spawned.length === 0) return;
        handedOver = false;
        await opts
          .onHeldChanged?.()
          .catch((error: unknown) => log.error({ err: error }, 'following the held seats failed'));
        if (opened) for (const host of spawned) await host.open();
        notifySeats();
      });
    }),
  );

  const org: SubsystemApplier = {
    name: 'org',
    apply: (next) => serial(() => reconcile(next)),
    rollback: (previous) => serial(() => reconcile(previous)),
  };
  const setLimits = (document: Company | null): Promise<void> => {
    limits = turnLimits(document?.turn_engine);
    for (const host of hosts.values()) host.send({ type: 'seat.settings', limits });
    return Promise.resolve();
  };
  const turnEngine: SubsystemApplier = { name: 'turn_engine', apply: setLimits, rollback: setLimits };
  const openAll = (): Promise<void> =>
    serial(async () => {
      opened = true;
      for (const host of hosts.values()) await host.open();
    });
  // A removed seat's pause goes with it (a seat added back under its handle starts unpaused). Swept after
  // the last subsystem applied, not as the seat goes: a rolled-back apply keeps it, and a seat removed
  // while no node ran it is cleared at the next apply. Each is recorded as `agent_resumed`, as a resume
  // is: the seat's row reads its pause from the events, and would read a seat added back as paused. Its
  // id is the pause's, so nodes sweeping the same record at once store one.
  const resumedRemoved = (handle: string, at: string | null): Promise<unknown> =>
    publishEvent(opts.bus, {
      ...newEvent({
        type: 'agent_resumed',
        category: EventCategory.Lifecycle,
        source: `${opts.nodeId}/seats`,
        summary: `${handle}: agent_resumed (removed from the company)`,
        actor: opts.nodeId,
        agent_id: handle,
        payload: { by: opts.nodeId, at: now().toISOString(), reason: 'removed from the company' },
        now: now(),
      }),
      ...(at !== null && { id: uuidv5(agentId(company.charter.name, handle), `pause-cleared:${at}`) }),
    });
  const clearRemovedPauses = (): Promise<void> =>
    serial(async () => {
      try {
        const cleared = await clearPausesOutside(opts.coord, (handle) => company.seats.has(handle));
        for (const { handle, paused } of cleared) await resumedRemoved(handle, paused?.at ?? null);
        if (cleared.length > 0)
          log.info({ seats: cleared.map((c) => c.handle) }, 'pause of removed seats cleared');
      } catch (error) {
        log.warn({ err: error }, 'clearing the pause of removed seats failed; tried again at the next apply');
      }
    });
  // A removed seat's cut turns are never taken up again: the spend their journals hold unstored is stored
  // here, after the last subsystem applied (seat.removed-spend.ts). Every node does it; ids make it once.
  const storeRemovedSpend = (): Promise<void> =>
    serial(async () => {
      for (const handle of [...removed]) {
        if (company.seats.has(handle)) continue;
        try {
          const records = await unsettledSpendOf(opts.bus, handle);
          await Promise.all(records.map((record) => spend(record)));
          for (const record of records) budget.count(record);
          removed.delete(handle);
          if (records.length > 0)
            log.info({ seat: handle, records: records.length }, 'unsettled spend of a removed seat stored');
        } catch (error) {
          log.warn(
            { err: error, seat: handle },
            'storing a removed seat its spend failed; tried again at the next apply',
          );
        }
      }
    });
  const inboxes: SubsystemApplier = {
    name: 'seat_inboxes',
    apply: async () => {
      await openAll();
      await clearRemovedPauses();
      await storeRemovedSpend();
    },
    rollback: openAll,
  };

  // Pause and resume: answered here for a seat this node runs, else forwarded to its holder.
  // A handle (in any case: handles are lower-case, `ADA` is `ada`) or a seat name; an exact handle or name
  // comes before a handle in another case.
  const handleOf = (id: string): string | null => {
    if (company.seats.has(id)) return id;
    const byName = [...company.seats.values()].find((s) => s.name === id)?.handle;
    if (byName !== undefined) return byName;
    const lower = id.toLowerCase();
    return company.seats.has(lower) ? lower : null;
  };
  const findSeat = (id: string): SeatHost | null => {
    const direct = hosts.get(id);
    if (direct) return direct;
    const handle = handleOf(id);
    return handle === null ? null : (hosts.get(handle) ?? null);
  };
  // `ask_human` and `withdraw_question` run inside a turn of a seat this node holds: its host records them.
  opts.needs?.bind({
    recordNeed: (handle, need) => {
      const host = hosts.get(handle);
      if (!host) return Promise.reject(new Error(`seat ${handle} does not run on this node`));
      return host.recordNeed(need);
    },
    withdrawNeed: async (handle, id, key, turnId) => {
      const host = hosts.get(handle);
      if (!host) throw new Error(`seat ${handle} does not run on this node`);
      const closed = await host.closeNeeds({
        cause: 'withdrawn',
        ids: [id],
        by: handle,
        key,
        turn_id: turnId,
      });
      return closed.length > 0;
    },
  });
  const subs: Subscription[] = answerSeatCommands({
    bus: opts.bus,
    coord: opts.coord,
    nodeId: opts.nodeId,
    now,
    findSeat,
    handleOf,
  });

  return {
    org,
    turnEngine,
    inboxes,
    budget,
    // Read through the fence: a node resumed from a pause answers before its fence timer ran.
    seats: () => [...hosts.keys()].filter((handle) => placement?.epoch(handle) != null),
    holds: (handle) => held.has(handle) && placement?.epoch(handle) != null,
    unproven: () => placement?.unproven() ?? {},
    host: (handle) => hosts.get(handle) ?? null,
    onSeatsChanged: (listener) => {
      seatListeners.push(listener);
    },
    async drain(graceMs) {
      draining = true;
      // Not serialised behind an apply in flight: the grace starts when the node is told to stop.
      await Promise.all([...hosts.values()].map((h) => h.drain(graceMs)));
    },
    stop: (stopOpts) =>
      serial(async () => {
        if (stopped) return;
        stopped = true;
        for (const sub of subs) await sub.stop();
        await budget.stop();
        // Hosts first (a running turn is cut, its wake left for redelivery), then the leases.
        await Promise.all([...hosts.values()].map((h) => h.stop()));
        hosts.clear();
        held = new Set();
        const p = await placementReady.catch(() => null);
        await p?.stop(stopOpts);
      }),
  };
}
