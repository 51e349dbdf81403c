/**
 * Schedules as the engine runs them and as `/schedules` shows them (spec "Schedule"), the ledger
 * row of one firing, the inbox wake a firing sends, and the `scheduled_timeout` guard breach.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';

const instant = z.string().datetime({ offset: true });

export const ScopeType = { Unit: 'unit', Role: 'role' } as const;
export type ScopeType = (typeof ScopeType)[keyof typeof ScopeType];

/**
 * One schedule resolved from the document: its scope, the effective timezone, defaults applied and
 * `runners` = the agent handles it wakes. `problem` says why it cannot be scheduled (an expression or
 * timezone that only fails once `${VAR}` references are resolved); such a schedule never fires.
 */
/**
 * How long a scheduled turn may take, counted from its firing, when the schedule sets no `timeout_seconds`:
 * a run that has not ended an hour after its firing is stale (the next firing is the next attempt).
 */
export const DEFAULT_SCHEDULE_TIMEOUT_SECONDS = 3600;

export const EffectiveSchedule = z.object({
  scope_type: z.enum([ScopeType.Unit, ScopeType.Role]),
  /** The unit's name, or the seat's handle. */
  scope_id: z.string(),
  name: z.string(),
  cron: z.string(),
  timezone: z.string(),
  task: z.string(),
  target: z.enum(['each', 'lead']),
  enabled: z.boolean(),
  catchup: z.boolean(),
  /** The schedule's own, else DEFAULT_SCHEDULE_TIMEOUT_SECONDS. */
  timeout_seconds: z.number().int().positive(),
  runners: z.array(z.string()),
  problem: z.string().nullable(),
  /**
   * The values `cron` and `timezone` fire by, when either holds a `${VAR}` whose value is a secret: `cron`
   * and `timezone` then read as written, and these stay in memory, shown to no one (ops/schedules.md).
   */
  resolved: z.object({ cron: z.string(), timezone: z.string() }).optional(),
});
export type EffectiveSchedule = z.infer<typeof EffectiveSchedule>;

/** The cron and timezone a schedule fires by: its resolved values, else those it shows. */
export function timingOf(s: EffectiveSchedule): { cron: string; timezone: string } {
  return s.resolved ?? { cron: s.cron, timezone: s.timezone };
}

/** A digest of the values a schedule fires by, recorded in their stead so a changed secret reads as re-timed. */
export function timingDigest(timing: { cron: string; timezone: string }): string {
  return createHash('sha256')
    .update(JSON.stringify([timing.cron, timing.timezone]))
    .digest('hex');
}

/** A row of `/schedules` `schedules[]`: every field of the spec's "Schedule". */
export const ScheduleView = EffectiveSchedule.omit({ problem: true, resolved: true }).extend({
  /** ISO 8601 instant, computed per request; empty when disabled (or when it can never fire). */
  next_run: z.union([instant, z.literal('')]),
});
export type ScheduleView = z.infer<typeof ScheduleView>;

export const ScheduleOutcome = {
  /** The wake was sent to the target's inbox (on time, or as the catchup of a missed firing). */
  Fired: 'fired',
  /** A missed firing outside its catchup window, or of a schedule without `catchup`. */
  SkippedCatchup: 'skipped_catchup',
  /** The wake could not be delivered to the inbox. */
  Failed: 'failed',
} as const;
export type ScheduleOutcome = (typeof ScheduleOutcome)[keyof typeof ScheduleOutcome];

/** The ledger row of one firing for one target; also the payload of the `schedule_fired` event. */
export const LedgerRow = z.object({
  scope_type: z.enum([ScopeType.Unit, ScopeType.Role]),
  scope_id: z.string(),
  schedule_name: z.string(),
  target_handle: z.string(),
  scheduled_at: instant,
  fired_at: instant,
  outcome: z.enum([ScheduleOutcome.Fired, ScheduleOutcome.SkippedCatchup, ScheduleOutcome.Failed]),
});
export type LedgerRow = z.infer<typeof LedgerRow>;

/** The event type whose payload is a ledger row. */
export const SCHEDULE_FIRED = 'schedule_fired';

/** `GET /schedules`. */
export const SchedulesAnswer = z.object({
  schedules: z.array(ScheduleView),
  recent_runs: z.array(LedgerRow),
});
export type SchedulesAnswer = z.infer<typeof SchedulesAnswer>;

/** `payload` of an inbox message of kind `schedule`: what the woken seat is asked to do, and by when. */
export const ScheduleWake = z.object({
  scope_type: z.enum([ScopeType.Unit, ScopeType.Role]),
  scope_id: z.string(),
  schedule_name: z.string(),
  task: z.string(),
  target: z.enum(['each', 'lead']),
  scheduled_at: instant,
  fired_at: instant,
  timeout_seconds: z.number().int().positive().nullable(),
  /** `fired_at + timeout_seconds`; null without a timeout. */
  deadline: instant.nullable(),
});
export type ScheduleWake = z.infer<typeof ScheduleWake>;

/** The turn engine's deadline for a scheduled turn: `fired_at + timeout_seconds`, or null. */
export function scheduledDeadline(firedAt: Date | string, timeoutSeconds: number | null): Date | null {
  if (timeoutSeconds === null) return null;
  const deadline = new Date(new Date(firedAt).getTime() + timeoutSeconds * 1000);
  // A stored document from before the bound may hold a timeout no date can carry: no deadline then.
  return Number.isNaN(deadline.getTime()) ? null : deadline;
}

/** True once `now` is past the wake's deadline (never without one). */
export function isScheduledTimeoutBreached(wake: ScheduleWake, now: Date): boolean {
  return wake.deadline !== null && now.getTime() > new Date(wake.deadline).getTime();
}

/** The `turn.guard_breach` payload when a scheduled turn outlives its `timeout_seconds`. */
export const ScheduledTimeoutBreach = z.object({
  kind: z.literal('scheduled_timeout'),
  turn_id: z.string().nullable(),
  target_handle: z.string(),
  scope_type: z.enum([ScopeType.Unit, ScopeType.Role]),
  scope_id: z.string(),
  schedule_name: z.string(),
  scheduled_at: instant,
  fired_at: instant,
  timeout_seconds: z.number().int().positive(),
  deadline: instant,
  /** When the breach was noticed. */
  at: instant,
});
export type ScheduledTimeoutBreach = z.infer<typeof ScheduledTimeoutBreach>;

/** Builds the breach payload for a wake that has a timeout; null when it has none. */
export function scheduledTimeoutBreach(
  wake: ScheduleWake,
  opts: { targetHandle: string; turnId: string | null; at: Date },
): ScheduledTimeoutBreach | null {
  if (wake.timeout_seconds === null || wake.deadline === null) return null;
  return {
    kind: 'scheduled_timeout',
    turn_id: opts.turnId,
    target_handle: opts.targetHandle,
    scope_type: wake.scope_type,
    scope_id: wake.scope_id,
    schedule_name: wake.schedule_name,
    scheduled_at: wake.scheduled_at,
    fired_at: wake.fired_at,
    timeout_seconds: wake.timeout_seconds,
    deadline: wake.deadline,
    at: opts.at.toISOString(),
  };
}

/** Identity of a schedule across revisions: names are unique within a scope. */
export function scheduleKey(s: Pick<EffectiveSchedule, 'scope_type' | 'scope_id' | 'name'>): string {
  return JSON.stringify([s.scope_type, s.scope_id, s.name]);
}

/**
 * When each runnable schedule's current timing (`cron` + `timezone`) was first planned, kept in the coordination
 * store so that a later duty holder never owes a firing from before a schedule was written or re-timed (the
 * previous holder's last renewal may be older than that). Keyed by `scheduleKey`; `planned_from` null: planned
 * before the fleet kept timings, so no later than any holder's last renewal. A secret value is never recorded:
 * `digest` stands for it.
 */
export const ScheduleTimings = z.object({
  schedules: z.record(
    z.string(),
    z.object({
      cron: z.string(),
      timezone: z.string(),
      /**
       * `timingDigest` of the values fired by when `cron`/`timezone` hold a secret `${VAR}` (recorded as
       * written then). Absent: `cron` and `timezone` are the values themselves (so are records from before).
       */
      digest: z.string().optional(),
      planned_from: instant.nullable(),
    }),
  ),
});
export type ScheduleTimings = z.infer<typeof ScheduleTimings>;
