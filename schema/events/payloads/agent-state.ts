/** Payloads that stop, pause or warn a seat (published by the seat host and the budget guard). */
import { z } from 'zod';
import { count, Instant } from './common.js';

/** One provider tried along a seat's chain (as the provider registry publishes it). */
export const ChainAttempt = z.looseObject({
  provider: z.string(),
  reason: z.string(),
  status: z.number().int().nullable().optional(),
});

/**
 * The provider chain gave no answer: the seat reads `stopped` / `provider` until a phase completes or
 * `retry_at` passes. The
 * provider registry publishes `{chain, attempts[]}`; the other fields are optional context.
 */
export const LlmUnavailable = z.looseObject({
  chain: z.array(z.string()).optional(),
  attempts: z.array(ChainAttempt).optional(),
  provider: z.string().optional(),
  model: z.string().optional(),
  reason: z.string().optional(),
  turn_id: z.string().nullable().optional(),
  phase: z.string().nullable().optional(),
  /** When the engine will try again, if it knows. */
  retry_at: Instant.nullable().optional(),
});

export const BudgetScope = { Org: 'org', Seat: 'seat' } as const;
export type BudgetScope = (typeof BudgetScope)[keyof typeof BudgetScope];

/**
 * A turn was refused or cut for the budget: the seat reads `stopped` / `budget` until a phase starts, the
 * scope's cap is raised past `used` (or removed), or the window ends.
 */
export const BudgetExhausted = z.object({
  scope: z.enum([BudgetScope.Org, BudgetScope.Seat]),
  cap: count,
  used: count,
  window_start: Instant,
  window_end: Instant,
  turn_id: z.string().nullable().optional(),
});

/**
 * A turn guard fired (a loop, a timeout, a ceiling): recorded as the seat's `last_error`. Guards add their
 * own fields (the scheduler's `scheduled_timeout` carries the schedule, deadline and `at`, and no `detail`).
 */
export const TurnGuardBreach = z.looseObject({
  turn_id: z.string().nullable(),
  phase: z.string().nullable().optional(),
  kind: z.string().min(1),
  detail: z.string().optional(),
});

/** `paused` of an agent row. `stop_running`: the running turn was cut rather than allowed to finish. */
export const Paused = z.object({
  by: z.string(),
  at: Instant,
  reason: z.string(),
  stop_running: z.boolean(),
});
export type Paused = z.infer<typeof Paused>;

export const AgentPaused = z.object({ paused: Paused });
export const AgentResumed = z.object({ by: z.string(), at: Instant, reason: z.string().optional() });
