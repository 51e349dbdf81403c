/**
 * Runs the scheduler duty on one node: keeps the duty lease (take, renew, lose), feeds the machine
 * the applied schedules, the duty and the clock, and executes what it decides — one timer, and
 * firings (claim, wake, ledger row). Every step runs on one queue, so effects keep their order and a
 * test can wait for `settled()` instead of sleeping.
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
import { answerHolder, holderGoneOver } from '../lease/index.js';
import { systemClock, type Clock } from './clock.js';
import { acquireDuty, releaseDuty, renewDuty, type Held } from './duty.js';
import { runFiring } from './fire.js';
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
  /** How long a lease lasts without renewal. Default 30 s. */
  readonly leaseTtlMs?: number;
  /** How often the holder renews. Default a third of the lease. */
  readonly renewEveryMs?: number;
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
  const renewEvery = opts.renewEveryMs ?? Math.floor(ttl / 3);
  const me = { duty: SCHEDULER_DUTY, node: opts.nodeId, instance: randomUUID() };
  const log = opts.logger;
  const admitted = opts.admitted ?? (() => true);
  // A restart of this node asks whether this process still lives before taking the duty from it.
  const answering = answerHolder(opts.bus, me.instance);
  const holderGone = holderGoneOver(opts.bus);
  let held: Held | null = null;
  let stopped = false;
  let cancelFire: () => void = () => undefined;
  let cancelLease: () => void = () => undefined;

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

  const fireAll = async (firings: Firing[]): Promise<void> => {
    for (const firing of firings) {
      try {
        const row = await runFiring(
          { bus: opts.bus, claims: opts.claims, nodeId: opts.nodeId, now: () => clock.now(), logger: log },
          firing,
        );
        if (row) opts.onRow?.(row);
      } catch (error) {
        log.error(
          { err: error, schedule: firing.schedule.name, target: firing.target_handle },
          'firing failed',
        );
      }
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
    await enqueue(() => actor.send({ type: 'scheduler.tick', at: clock.now().toISOString() }));
    await settled();
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
    const result = await acquireDuty(opts.coord, me, now, ttl, { holderGone }).catch((error: unknown) => {
      log.error({ err: error }, 'scheduler duty could not be read');
      return { won: false as const, retryAt: new Date(now.getTime() + renewEvery) };
    });
    if (!result.won) {
      leaseAt(result.retryAt, attempt);
      return;
    }
    held = result.held;
    log.info({ epoch: held.lease.epoch, since: result.since?.toISOString() ?? null }, 'scheduler duty taken');
    actor.send({
      type: 'scheduler.duty.acquired',
      at: now.toISOString(),
      since: result.since?.toISOString() ?? null,
    });
    leaseAt(new Date(now.getTime() + renewEvery), renew);
  };
  const renew = async (): Promise<void> => {
    if (stopped || held === null) return;
    const now = clock.now();
    const next = await renewDuty(opts.coord, held, now, ttl).catch((error: unknown) => {
      log.error({ err: error }, 'scheduler duty renewal failed');
      return null;
    });
    if (next !== null) {
      held = next;
      leaseAt(new Date(now.getTime() + renewEvery), renew);
      return;
    }
    log.warn({ epoch: held.lease.epoch }, 'scheduler duty lost');
    held = null;
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
    holding: () => held !== null,
    settled,
    async stop() {
      if (stopped) return;
      stopped = true;
      cancelFire();
      cancelLease();
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
