/** Payload schemas of the event types the read models consume (spec "Event types named"). */
export {
  AgentPhaseCompleted,
  AgentPhaseStarted,
  AgentTurnCompleted,
  AgentTurnProgress,
  NeedsClosed,
  PhaseRecord,
  RunningCall,
} from './agent-phase.js';
export {
  AgentPaused,
  AgentResumed,
  BudgetExhausted,
  LlmUnavailable,
  Paused,
  TurnGuardBreach,
} from './agent-state.js';
export { AlarmCleared, AlarmKind, AlarmRaised, AlarmSeverity } from './alarm.js';
export { Round, ToolExecution } from './common.js';
export {
  CounterpartyProfileUpdated,
  EpisodeConsolidated,
  EpisodePruneReason,
  EpisodeRecorded,
  EpisodesCompacted,
  EpisodesPruned,
  MemoryForgotten,
  MemoryRemembered,
  RAW_EPISODES_HELD_MAX,
  SkillPromoted,
  SkillSynthesized,
} from './memory.js';
export { SandboxEventTypes, SandboxRun, terminalSandboxStatuses } from './sandbox.js';
