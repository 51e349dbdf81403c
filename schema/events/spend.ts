/**
 * A usage (spend) record, published on `svc.spend.<kind>` (`svc.spend.llm` for a model call,
 * `svc.spend.auxiliary` for auxiliary workers). Kept 181 days; the token rollup, the live 24 h window and the
 * budgets are computed from these.
 */
import { z } from 'zod';

export const SpendPhase = {
  Plan: 'plan',
  Execute: 'execute',
  Review: 'review',
  Subagent: 'subagent',
  Auxiliary: 'auxiliary',
  Judge: 'judge',
} as const;
export type SpendPhase = (typeof SpendPhase)[keyof typeof SpendPhase];

export const SpendRecord = z.object({
  id: z.string().min(1),
  /** RFC 3339 instant of the call's end; may be unparseable in old data (the window keeps it, see projections). */
  timestamp: z.string(),
  node: z.string(),
  handle: z.string(),
  agent_id: z.string(),
  role: z.string(),
  turn_id: z.string().nullable(),
  phase: z.enum(Object.values(SpendPhase) as [SpendPhase, ...SpendPhase[]]),
  /** Auxiliary phase only: `persist_decider`, `counterparty_profiler`, `skill_synthesizer`, ... */
  worker: z.string().nullable(),
  /** The provider entry key and the model it served. */
  provider: z.string(),
  model: z.string(),
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_read_tokens: z.number().int().nonnegative(),
  cache_write_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  /**
   * True when the counts are an estimate: the provider's stream was cut before it reported them
   * (ops/providers.md "Usage"). Absent: the provider's own counts.
   */
  estimated: z.literal(true).optional(),
  cost_usd: z.number().nonnegative().optional(),
});
export type SpendRecord = z.infer<typeof SpendRecord>;
