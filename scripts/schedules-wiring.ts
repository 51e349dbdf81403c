/**
 * The schedules subsystem of one node: the scheduler host (it seeks the singleton duty once the
 * first revision is applied and re-plans on every apply), the ledger read model and `/schedules`.
 * Every node runs the host; one holds the duty at a time.
 */
import type { Logger } from 'pino';
import { startScheduler, type SubsystemApplier } from '../actors/index.js';
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
}): Promise<Schedules> {
  const { bus, logger } = opts;
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
  });
  const answer = (): SchedulesAnswer => schedulesAnswer(host.schedules(), runs.state, new Date());
  const pushes = new Set<(data: unknown, mode: 'replace' | 'merge') => void>();
  const changed = (): void => {
    for (const push of pushes) push(answer(), 'replace');
  };
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
        return () => pushes.delete(push);
      },
    },
    answer,
    async stop() {
      stopRuns();
      pushes.clear();
      await host.stop();
      await runs.stop();
    },
  };
}
