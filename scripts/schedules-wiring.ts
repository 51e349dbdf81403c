/**
 * The schedules subsystem of one node: the scheduler host (it seeks the singleton duty once the
 * first revision is applied and re-plans on every apply), the ledger read model and `/schedules`.
 * Every node runs the host; one holds the duty at a time.
 */
import type { Logger } from 'pino';
import { startScheduler, systemClock, type Clock, type SubsystemApplier } from '../actors/index.js';
import { Buckets, SCHEDULE_CLAIMS_TTL_MS, type Bus, type Kv } from '../bus/index.js';
import { scheduleRoutes, type Question, type RouteDef } from '../http/index.js';
import { followScheduleRuns, schedulesAnswer } from '../projections/index.js';
import type { Resolver, SchedulesAnswer } from '../schema/index.js';

/** The `schedules` part of `/stream/snapshot` and the socket. */
export interface SchedulesSection {
  readonly name: 'schedules';
  current(): SchedulesAnswer;
  subscribe(push: (data: unknown, mode: 'replace' | 'merge') => void): () => void;
}

export interface Schedules {
  /** Pass to the config applier: re-plans on every apply. */
  readonly applier: SubsystemApplier;
  routes(): RouteDef[];
  readonly questions: ReadonlyMap<string, Question>;
  readonly section: SchedulesSection;
  answer(): SchedulesAnswer;
  stop(): Promise<void>;
}

export async function startSchedules(opts: {
  bus: Bus;
  coord: Kv;
  nodeId: string;
  logger: Logger;
  /** `${VAR}` answers for cron and timezone; default the process environment. */
  resolve?: Resolver;
  /** Whether a name's value is a secret (shown as its `${VAR}` only); default every name. */
  secret?: (name: string) => boolean;
  /** False while another process writes this node id (admission withheld): the duty is not taken. */
  admitted?: () => boolean;
  /** The duty lease's ttl: `node.seat_lease_seconds`, so the duty fails over on the seats' clock. */
  leaseTtlMs?: number;
  /** The scheduler's and the answer's clock; default real time (a test drives its own). */
  clock?: Clock;
}): Promise<Schedules> {
  const { bus, logger } = opts;
  const clock = opts.clock ?? systemClock;
  const claims = await bus.kv({ name: Buckets.ScheduleClaims, ttlMs: SCHEDULE_CLAIMS_TTL_MS });
  const runs = await followScheduleRuns({ bus, logger: logger.child({ component: 'schedules.view' }) });
  const host = startScheduler({
    bus,
    coord: opts.coord,
    claims,
    nodeId: opts.nodeId,
    logger: logger.child({ component: 'scheduler' }),
    ...(opts.admitted ? { admitted: opts.admitted } : {}),
    ...(opts.leaseTtlMs !== undefined ? { leaseTtlMs: opts.leaseTtlMs } : {}),
    // Only a given clock: without one the host's fence keeps its monotonic time (performance.now()).
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  const answer = (): SchedulesAnswer => schedulesAnswer(host.schedules(), runs.state, clock.now());
  const pushes = new Set<(data: unknown, mode: 'replace' | 'merge') => void>();
  // A fire time that wakes no one (no runner, a firing skipped) writes no ledger row, so nothing else would
  // push and the section's `next_run` would fall into the past: it is pushed again when its earliest
  // `next_run` passes. One timer, re-armed at each push: one wake-up per fire instant, no polling.
  let cancelPass: (() => void) | null = null;
  let stopped = false;
  const arm = (current: SchedulesAnswer): void => {
    cancelPass?.();
    cancelPass = null;
    if (stopped || pushes.size === 0) return;
    let earliest = Infinity;
    for (const s of current.schedules)
      if (s.next_run !== '') earliest = Math.min(earliest, Date.parse(s.next_run));
    if (earliest !== Infinity) cancelPass = clock.at(new Date(earliest), changed);
  };
  function changed(): void {
    const current = answer();
    for (const push of pushes) push(current, 'replace');
    arm(current);
  }
  const stopRuns = runs.onChange(changed);
  const inner = host.applier({
    resolve: opts.resolve ?? ((name) => process.env[name]),
    ...(opts.secret ? { secret: opts.secret } : {}),
  });
  const applier: SubsystemApplier = {
    name: inner.name,
    apply: async (next, previous) => {
      await inner.apply(next, previous);
      changed();
    },
    rollback: async (previous, failed) => {
      await inner.rollback?.(previous, failed);
      changed();
    },
  };
  return {
    applier,
    routes: () => scheduleRoutes({ answer }),
    questions: new Map<string, Question>([['schedules', { guarded: false, answer: () => answer() }]]),
    section: {
      name: 'schedules',
      current: answer,
      subscribe(push) {
        pushes.add(push);
        if (cancelPass === null) arm(answer());
        return () => pushes.delete(push);
      },
    },
    answer,
    async stop() {
      stopped = true;
      cancelPass?.();
      cancelPass = null;
      stopRuns();
      pushes.clear();
      await host.stop();
      await runs.stop();
    },
  };
}
