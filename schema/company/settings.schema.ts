/** Engine tuning blocks of the company document: turn engine, learning, knowledge. */
import { z } from 'zod';
import { count, nonEmpty } from './fields.js';

const flag = z.boolean().optional();
const toggle = z.strictObject({ enabled: flag });

export const TurnEngine = z.strictObject({
  extension_enabled: flag,
  plan_max_tool_rounds_ceiling: count.optional(),
  execute_max_tool_rounds_ceiling: count.optional(),
  extension_round_step: count.optional(),
  max_tool_rounds: count.optional(),
});

/** Zero's meaning for the episode lifecycle limits is not shown by the spec, so zero is accepted. */
export const Learning = z.strictObject({
  enabled: flag,
  reflect: z.strictObject({ enabled: flag, summarize_episodes: flag }).optional(),
  counterparty: toggle.optional(),
  skill_synthesis: z.strictObject({ enabled: flag, scheduler_enabled: flag }).optional(),
  skill_refinement: toggle.optional(),
  skill_promotion: toggle.optional(),
  personal_memory: z.strictObject({ max_refreshes_per_turn: count.optional() }).optional(),
  episode_lifecycle: z
    .strictObject({
      max_raw_episodes_per_agent: count.optional(),
      non_terminal_max_age_days: count.optional(),
      consolidated_grace_days: count.optional(),
      compaction_min_age_days: count.optional(),
      compaction_min_cluster_size: count.optional(),
      compacted_max_age_days: count.optional(),
    })
    .optional(),
});

/** Org-wide read scope; empty means each agent relies on its own access. */
export const Knowledge = z.strictObject({ wiki_spaces: z.array(nonEmpty).optional() });
