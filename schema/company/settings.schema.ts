/** Engine tuning blocks of the company document: turn engine, learning, knowledge. */
import { z } from 'zod';
import { count, nonEmpty } from './fields.js';

const flag = (what: string) => z.boolean().optional().describe(what);
const toggle = (what: string) => z.strictObject({ enabled: flag(what) }).optional();
const limit = (what: string) => count.optional().describe(what);

/**
 * The round limits where `turn_engine` is silent (ops/turn-engine.md): read by the turn engine and by the
 * `not_applied` check, which says when a written `max_tool_rounds` is clamped to one of these ceilings.
 */
export const TURN_ROUND_DEFAULTS = {
  plan_rounds: 16,
  execute_rounds: 20,
  plan_ceiling: 32,
  execute_ceiling: 40,
  extension_step: 8,
} as const;

export const TurnEngine = z.strictObject({
  extension_enabled: flag(
    'Whether a phase may extend its tool rounds past max_tool_rounds, up to its ceiling.',
  ),
  plan_max_tool_rounds_ceiling: limit('Most tool rounds the plan phase may reach with extensions.'),
  execute_max_tool_rounds_ceiling: limit('Most tool rounds the execute phase may reach with extensions.'),
  extension_round_step: limit('Tool rounds one extension adds.'),
  max_tool_rounds: limit('Tool rounds a phase gets before it must extend or stop.'),
});

/** Zero turns an episode lifecycle rule off (ops/turn-engine.md "Episode lifecycle"; the spec leaves it open). */
export const Learning = z.strictObject({
  enabled: flag('Whether agents learn at all.'),
  reflect: z
    .strictObject({
      enabled: flag('Whether an agent reflects on a finished turn.'),
      summarize_episodes: flag('Whether reflection summarises the turn’s episode.'),
    })
    .optional()
    .describe('Reflection after turns.'),
  counterparty: toggle('Whether profiles of the people an agent deals with are kept.').describe(
    'Counterparty profiles.',
  ),
  skill_synthesis: z
    .strictObject({
      enabled: flag('Whether skills are synthesised from episodes.'),
      scheduler_enabled: flag('Whether synthesis also runs on a schedule.'),
    })
    .optional()
    .describe('Skills written from repeated episodes.'),
  skill_refinement: toggle('Whether synthesised skills are refined.').describe('Skill refinement.'),
  skill_promotion: toggle('Whether skills are promoted to other agents.').describe('Skill promotion.'),
  personal_memory: z
    .strictObject({ max_refreshes_per_turn: limit('Personal memory reloads one turn may make.') })
    .optional()
    .describe('An agent’s personal memory.'),
  episode_lifecycle: z
    .strictObject({
      max_raw_episodes_per_agent: limit('Raw episodes kept per agent.'),
      non_terminal_max_age_days: limit('Days an unfinished episode is kept.'),
      consolidated_grace_days: limit('Days a consolidated episode is kept before compaction.'),
      compaction_min_age_days: limit('Days an episode must age before it is compacted.'),
      compaction_min_cluster_size: limit('Episodes a cluster needs before it is compacted.'),
      compacted_max_age_days: limit('Days a compacted episode is kept.'),
    })
    .optional()
    .describe(
      'How long episodes are kept and when they are compacted (zero turns a rule off; ops/turn-engine.md).',
    ),
});

/** Org-wide read scope; empty means each agent relies on its own access. */
export const Knowledge = z.strictObject({
  wiki_spaces: z
    .array(nonEmpty)
    .optional()
    .describe('Wiki space keys every agent may read; empty: each agent relies on its own access.'),
});
