/**
 * Runs the scheduler duty on one node: keeps the duty lease (take, renew, lose), feeds the machine
 * the applied schedules, the duty and the clock, and executes what it decides — one timer, and
 * firings (claim, wake, ledger row). Every step runs on one queue, so effects keep their order and a
 * test can wait for `settled()` instead of sleeping.
 *
 * Fencing (DESIGN.md "A lease holder fences itself", as the seats do): peers may take the duty once
 * its lease expired by their clock, so this node gives it up by its own monotonic clock at the last
 * proof of its hold (a take or renewal the store confirmed, dated when it was sent) plus the ttl minus
 * a margin — on a timer of its own, never behind a renewal hanging on a dead connection — and checks
 * the same synchronously before each tick and each claim, so a process resumed from a pause fires
 * nothing before its timers ran. A claim won is the firing's own fence: nobody else can send it.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createActor } from 'xstate';
import type { Bus, Kv } from '../../bus/index.js';
import {
  resolveSchedules,
  type EffectiveSchedule,
  type LedgerRow,
  type ResolveOptions,
  type ScheduleTimings,
} from '../../schema/index.js';
import type { SubsystemApplier } from '../config/index.js';
import { answerHolder, holderGoneOver, LeaseFencedError } from '../lease/index.js';
import { systemClock, type Clock } from './clock.js';
import { acquireDuty, releaseDuty, renewDuty, type Held } from './duty.js';
import { completeUnfinished, runFiring, type FireDeps } from './fire.js';
import { schedulerMachine } from './scheduler.machine.js';
import { plannedFrom, type Firing } from './scheduler.plan.js';
import { recordTimings } from './timings.js';

export const SCHEDULER_DUTY = 'scheduler';

export interface SchedulerOptions {
  readonly bus: Bus;
  /** `svc_coord`: the duty lease. */
  readonly coord: Kv;
  /** Firing claims (`svc_schedule_claims`). */
  readonly claims: Kv;
  readonly nodeId: string;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** How long a lease lasts without renewal (`node.seat_lease_seconds`). Default 30 s. */
  readonly leaseTtlMs?: number;
  /** How often the holder renews. Default a third of the lease. */
  readonly renewEveryMs?: number;
  /** How long before its peers may take the duty the holder gives it up. Default a sixth of the lease. */
  readonly fenceMarginMs?: number;
  /**
   * The monotonic clock the fence reads (ms). Default `performance.now()`, or the injected `clock`'s
   * own time when one is given (a test clock is its only time).
   */
  readonly monotonic?: () => number;
  /** Called with each ledger row this node recorded. */
  readonly onRow?: (row: LedgerRow) => void;
  /**
   * False while the fleet withholds this node's admission (another process writes its node id): the
   * duty is not taken meanwhile (a held one is kept). Default always admitted.
   */
  readonly admitted?: () => boolean;
}

export interface SchedulerHost {
  /** Re-plans with the schedules of a newly applied document. */
  plan(schedules: EffectiveSchedule[]): Promise<void>;
  /** The scheduler's part of a config apply (subsystem `org`: schedules follow seats and units). */
  applier(opts?: ResolveOptions): SubsystemApplier;
  /** The schedules last planned. */
  schedules(): EffectiveSchedule[];
  holding(): boolean;
  /** Resolves once every queued step (lease, tick, firing) has finished. */
  settled(): Promise<void>;
  /** Releases the duty (so another node takes over at once) and stops every timer. */
  stop(): Promise<void>;
}

/** Starts the host; it seeks the duty at its first `plan` (the first config apply). */
export function startScheduler(opts: SchedulerOptions): SchedulerHost {
  const clock = opts.clock ?? systemClock;
  const ttl = opts.leaseTtlMs ?? 30_000;
  const renewEvery = opts.renewEveryMs ?? Math.max(1, Math.floor(ttl / 3));
  const margin = opts.fenceMarginMs ?? Math.floor(ttl / 6);
  if (margin >= ttl - renewEvery)
    throw new RangeError(`fence margin ${margin} ms leaves no renewal before the ${ttl} ms lease binds`);
  const monotonic = opts.monotonic ?? (opts.clock ? () => clock.now().getTime() : () => performance.now());
  const me = { duty: SCHEDULER_DUTY, node: opts.nodeId, instance: randomUUID() };
  const log = opts.logger;
  const admitted = opts.admitted ?? (() => true);
  // A restart of this node asks whether this process still lives before taking the duty from it.
  const answering = answerHolder(opts.bus, me.instance);
  const holderGone = holderGoneOver(opts.bus);
  let held: Held | null = null;
  /** The monotonic instant the last confirmed take or renewal of `held` was sent. */
  let provenAt = -Infinity;
  const fenceAt = (): number => provenAt + ttl - margin;
  /** Whether this node may still act as the holder: it holds the duty and can prove it now. */
  const valid = (): boolean => held !== null && monotonic() < fenceAt();
  let stopped = false;
  let cancelFire: () => void = () => undefined;
  let cancelLease: () => void = () => undefined;
  let cancelFence: () => void = () => undefined;

  // One queue for every step; a failed step is logged and the queue goes on.
  let chain: Promise<void> = Promise.resolve();
  const enqueue = (step: () => Promise<void> | void): Promise<void> => {
    const run = chain
      .then(step)
      .catch((error: unknown) => log.error({ err: error }, 'scheduler step failed'));
    chain = run;
    return run;
  };
  const settled = async (): Promise<void> => {
    let seen: Promise<void>;
    do {
      seen = chain;
      await seen;
    } while (seen !== chain);
  };

  /** What a firing made under `epoch` needs: fenced by that epoch still being held and provable. */
  const fireDeps = (epoch: number): FireDeps => ({
    bus: opts.bus,
    claims: opts.claims,
    nodeId: opts.nodeId,
    now: () => clock.now(),
    logger: log,
    epoch,
    mayClaim: () => valid() && held?.lease.epoch === epoch,
  });

  const fireAll = async (firings: Firing[]): Promise<void> => {
    for (const firing of firings) {
      // Checked again right before each claim (synchronously, in runFiring): a pause may fall between.
      if (!valid()) {
        if (held !== null) fence('its lease could not be renewed in time');
        return;
      }
      try {
        const row = await runFiring(fireDeps(held!.lease.epoch), firing);
        if (row) opts.onRow?.(row);
      } catch (error) {
        if (error instanceof LeaseFencedError) {
          // A pause between this loop's check and the claim: the firings left are the next holder's.
          fence('its lease could not be renewed in time');
          return;
        }
        log.error(
          { err: error, schedule: firing.schedule.name, target: firing.target_handle },
          'firing failed',
        );
      }
    }
  };

  /** After the catchup of a takeover: the claims other holders left unfinished (ops/schedules.md "Claims"). */
  const completeOpen = async (): Promise<void> => {
    if (!valid()) return;
    try {
      for (const row of await completeUnfinished(fireDeps(held!.lease.epoch))) opts.onRow?.(row);
    } catch (error) {
      if (error instanceof LeaseFencedError) return fence('its lease could not be renewed in time');
      log.error({ err: error }, 'unfinished firings could not be completed');
    }
  };

  const actor = createActor(
    schedulerMachine.provide({
      actions: {
        fire: (_, params) => {
          if (params.firings.length > 0) void enqueue(() => fireAll(params.firings));
        },
        arm: (_, params) => {
          cancelFire();
          cancelFire = () => undefined;
          if (params.at === null || stopped) return;
          cancelFire = clock.at(new Date(params.at), () => tickNow());
        },
      },
    }),
  ).start();

  const tickNow = async (): Promise<void> => {
    await enqueue(() => {
      // A holder resumed from a pause gives the duty up before its tick decides any firing.
      if (held !== null && !valid()) return fence('its lease could not be renewed in time');
      actor.send({ type: 'scheduler.tick', at: clock.now().toISOString() });
    });
    await settled();
  };

  /** Gives the duty up here: fires nothing more, and seeks it again (a peer may hold it by now). */
  const fence = (why: string): void => {
    if (held === null) return;
    log.warn(
      {
        epoch: held.lease.epoch,
        unproven_ms: Math.round(monotonic() - provenAt),
        ttl_ms: ttl,
        margin_ms: margin,
      },
      `scheduler duty fenced: ${why}; it fires nothing more here`,
    );
    held = null;
    cancelFence();
    actor.send({ type: 'scheduler.duty.lost' });
    leaseAt(clock.now(), attempt);
  };
  /** One timer at the fence of the duty held; it never waits behind the queue (a hung renewal). */
  const armFence = (): void => {
    cancelFence();
    cancelFence = () => undefined;
    if (held === null || stopped) return;
    const wait = Math.max(0, Math.ceil(fenceAt() - monotonic()));
    cancelFence = clock.at(new Date(clock.now().getTime() + wait), () => {
      if (held === null || stopped) return;
      if (monotonic() < fenceAt()) return armFence();
      fence('its lease could not be renewed in time');
    });
  };
  /** Holding `next`, proven at the monotonic instant `sentAt`: the renewal due a third of a lease later. */
  const prove = (next: Held, sentAt: number): void => {
    held = next;
    provenAt = sentAt;
    armFence();
    const wait = Math.max(0, provenAt + renewEvery - monotonic());
    leaseAt(new Date(clock.now().getTime() + wait), renew);
  };

  // The lease: one timer, either the holder's next renewal or a candidate's next attempt.
  const leaseAt = (when: Date, step: () => Promise<void>): void => {
    cancelLease();
    if (stopped) return;
    cancelLease = clock.at(when, async () => {
      await enqueue(step);
      await settled();
    });
  };
  const attempt = async (): Promise<void> => {
    if (stopped || held !== null) return;
    const now = clock.now();
    // A duplicate of this node id runs: the duty waits until the other's record expired.
    if (!admitted()) {
      leaseAt(new Date(now.getTime() + renewEvery), attempt);
      return;
    }
    const sentAt = monotonic();
    const result = await acquireDuty(opts.coord, me, now, ttl, { holderGone }).catch((error: unknown) => {
      log.error({ err: error }, 'scheduler duty could not be read');
      return { won: false as const, retryAt: new Date(now.getTime() + renewEvery) };
    });
    if (!result.won) {
      leaseAt(result.retryAt, attempt);
      return;
    }
    log.info(
      { epoch: result.held.lease.epoch, since: result.since?.toISOString() ?? null },
      'scheduler duty taken',
    );
    prove(result.held, sentAt);
    actor.send({
      type: 'scheduler.duty.acquired',
      at: now.toISOString(),
      since: result.since?.toISOString() ?? null,
    });
    // Queued behind the catchup's firings, which complete the claims they meet on their own.
    void enqueue(completeOpen);
  };
  const renew = async (): Promise<void> => {
    if (stopped || held === null) return;
    // Past its fence (a pause, a renewal that hung) the duty is given up, not renewed: a peer may hold it.
    if (!valid()) return fence('its lease could not be renewed in time');
    const mine = held;
    const now = clock.now();
    const sentAt = monotonic();
    const next = await renewDuty(opts.coord, mine, now, ttl).catch((error: unknown) => {
      log.error({ err: error }, 'scheduler duty renewal failed');
      return undefined;
    });
    // Fenced (or stopped) while the renewal was out: what it says no longer matters here.
    if (held !== mine) return;
    if (next === undefined) {
      // Not refused, not confirmed: try again at the next period; the fence stops the duty in time.
      leaseAt(new Date(clock.now().getTime() + renewEvery), renew);
      return;
    }
    if (next !== null) return prove(next, sentAt);
    log.warn({ epoch: mine.lease.epoch }, 'scheduler duty lost');
    held = null;
    cancelFence();
    actor.send({ type: 'scheduler.duty.lost' });
    await attempt();
  };

  // The duty is sought once the first schedules are known, so that its catchup sees them.
  let planned = false;
  let timings: ScheduleTimings | null = null;
  const plan = async (schedules: EffectiveSchedule[]): Promise<void> => {
    await enqueue(async () => {
      // 1. record when each timing was planned (durable before this node fires by it), 2. re-plan.
      const at = clock.now();
      timings = await recordTimings(opts.coord, schedules, at, timings, log);
      actor.send({
        type: 'scheduler.planned',
        schedules,
        at: at.toISOString(),
        planned_from: plannedFrom(timings),
      });
    });
    if (!planned) {
      planned = true;
      await enqueue(attempt);
    }
    await settled();
  };

  return {
    plan,
    applier: (resolveOpts) => ({
      name: 'org',
      apply: (next) => plan(resolveSchedules(next, resolveOpts)),
      rollback: (previous) => plan(resolveSchedules(previous, resolveOpts)),
    }),
    schedules: () => actor.getSnapshot().context.schedules,
    holding: valid,
    settled,
    async stop() {
      if (stopped) return;
      stopped = true;
      cancelFire();
      cancelLease();
      cancelFence();
      await settled();
      await answering.stop();
      const last = held;
      held = null;
      actor.stop();
      if (last !== null)
        await releaseDuty(opts.coord, last, clock.now()).catch((error: unknown) =>
          log.error({ err: error }, 'scheduler duty release failed'),
        );
    },
  };
}
