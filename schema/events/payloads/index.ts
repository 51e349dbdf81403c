/**
 * Payload schemas of the event types the read models consume (spec "Event types named"). `EventPayloads`
 * maps a type to its schema so a reader parses a record's payload in one place.
 */
import type { z } from 'zod';
import {
  AgentPhaseCompleted,
  AgentPhaseStarted,
  AgentTurnCompleted,
  AgentTurnProgress,
} from './agent-phase.js';
import {
  AgentPaused,
  AgentResumed,
  BudgetExhausted,
  LlmUnavailable,
  TurnGuardBreach,
} from './agent-state.js';
import {
  CounterpartyProfileUpdated,
  EpisodeRecorded,
  MemoryForgotten,
  MemoryRemembered,
  SkillSynthesized,
} from './memory.js';
import { AlarmCleared, AlarmRaised } from './alarm.js';
import { SandboxRun } from './sandbox.js';

export {
  AgentPhaseCompleted,
  AgentPhaseStarted,
  AgentTurnCompleted,
  AgentTurnProgress,
  PhaseRecord,
  RunningCall,
  TimelineEntry,
  TurnNeeds,
  TurnReview,
} from './agent-phase.js';
export {
  AgentPaused,
  AgentResumed,
  BudgetExhausted,
  BudgetScope,
  GuardKind,
  LlmUnavailable,
  Paused,
  TurnGuardBreach,
} from './agent-state.js';
export { AlarmCleared, AlarmKind, AlarmRaised, AlarmSeverity } from './alarm.js';
export { Instant, Round, Steer, TokenCounts, ToolExecution, ToolOrigin } from './common.js';
export {
  CounterpartyProfileUpdated,
  EpisodeRecorded,
  MemoryForgotten,
  MemoryRemembered,
  MemoryTerm,
  SkillSynthesized,
} from './memory.js';
export { SandboxEventTypes, SandboxRun, SandboxStatus, terminalSandboxStatuses } from './sandbox.js';

export const EventPayloads = {
  agent_phase_started: AgentPhaseStarted,
  agent_phase_completed: AgentPhaseCompleted,
  agent_turn_progress: AgentTurnProgress,
  agent_turn_completed: AgentTurnCompleted,
  llm_unavailable: LlmUnavailable,
  budget_exhausted: BudgetExhausted,
  'turn.guard_breach': TurnGuardBreach,
  agent_paused: AgentPaused,
  agent_resumed: AgentResumed,
  episode_recorded: EpisodeRecorded,
  memory_remembered: MemoryRemembered,
  memory_forgotten: MemoryForgotten,
  counterparty_profile_updated: CounterpartyProfileUpdated,
  skill_synthesized: SkillSynthesized,
  sandbox_run_started: SandboxRun,
  sandbox_run_updated: SandboxRun,
  sandbox_run_paused: SandboxRun,
  sandbox_run_completed: SandboxRun,
  sandbox_run_failed: SandboxRun,
  sandbox_run_cancelled: SandboxRun,
  alarm_raised: AlarmRaised,
  alarm_cleared: AlarmCleared,
} as const satisfies Record<string, z.ZodType>;
export type PayloadType = keyof typeof EventPayloads;

/** The parsed payload of a record of `type`, or null when the type is unknown or the payload malformed. */
export function parsePayload<T extends PayloadType>(
  type: T,
  payload: unknown,
): z.infer<(typeof EventPayloads)[T]> | null {
  const parsed = EventPayloads[type].safeParse(payload);
  return parsed.success ? (parsed.data as z.infer<(typeof EventPayloads)[T]>) : null;
}
