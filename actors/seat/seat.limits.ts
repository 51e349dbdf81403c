/**
 * The turn engine's limits, read from the company document's `turn_engine` (spec "Tier B"), with the
 * defaults ops/turn-engine.md names where the document is silent. Pure: imports nothing with effects.
 */
import { TURN_ROUND_DEFAULTS, type Company } from '../../schema/index.js';

export interface TurnLimits {
  /** Base tool rounds of the plan phase, already clamped to its ceiling. */
  readonly plan_rounds: number;
  readonly execute_rounds: number;
  readonly plan_ceiling: number;
  readonly execute_ceiling: number;
  readonly extension_enabled: boolean;
  /** Rounds added each time a phase that is still calling tools reaches its limit. */
  readonly extension_step: number;
  /** Plan → execute → review passes before the depth guard ends the turn. */
  readonly max_iterations: number;
}

export const defaultLimits: TurnLimits = {
  ...TURN_ROUND_DEFAULTS,
  extension_enabled: false,
  max_iterations: 3,
};

const positive = (value: number | undefined): number | null =>
  value !== undefined && Number.isInteger(value) && value > 0 ? value : null;

/**
 * `turn_engine` of a document (or the block itself) as limits. `max_tool_rounds`, when set, is the base
 * of both phases; each base is clamped to its phase's ceiling.
 */
export function turnLimits(turnEngine: Company['turn_engine']): TurnLimits {
  const raw = turnEngine ?? {};
  const planCeiling = positive(raw.plan_max_tool_rounds_ceiling) ?? defaultLimits.plan_ceiling;
  const executeCeiling = positive(raw.execute_max_tool_rounds_ceiling) ?? defaultLimits.execute_ceiling;
  const base = positive(raw.max_tool_rounds);
  return {
    plan_rounds: Math.min(base ?? defaultLimits.plan_rounds, planCeiling),
    execute_rounds: Math.min(base ?? defaultLimits.execute_rounds, executeCeiling),
    plan_ceiling: planCeiling,
    execute_ceiling: executeCeiling,
    extension_enabled: raw.extension_enabled === true,
    extension_step: positive(raw.extension_round_step) ?? defaultLimits.extension_step,
    max_iterations: defaultLimits.max_iterations,
  };
}

/** The round limit a phase starts with and the ceiling extensions may reach. */
export function phaseRounds(
  limits: TurnLimits,
  phase: string,
): { readonly max_rounds: number; readonly ceiling: number } {
  if (phase === 'plan') return { max_rounds: limits.plan_rounds, ceiling: limits.plan_ceiling };
  if (phase === 'execute') return { max_rounds: limits.execute_rounds, ceiling: limits.execute_ceiling };
  // Review offers no tools (turn.phase.ts), so it is one call; these only bound a future review that looks.
  return { max_rounds: Math.min(4, limits.plan_rounds), ceiling: Math.min(4, limits.plan_ceiling) };
}

/** The next limit when a phase reaches `current` still calling tools; null when it may not extend. */
export function extendRounds(limits: TurnLimits, current: number, ceiling: number): number | null {
  if (!limits.extension_enabled || current >= ceiling) return null;
  return Math.min(current + limits.extension_step, ceiling);
}
