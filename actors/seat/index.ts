/** Agent seats and the turn engine. */
export { createBudget, monthOf, type Budget, type BudgetRefusal } from './budget.js';
export { defaultLimits, extendRounds, phaseRounds, turnLimits, type TurnLimits } from './seat.limits.js';
export {
  seatMachine,
  type Paused,
  type PhaseName,
  type PhaseOutcome,
  type PlanDecision,
  type SeatContext,
  type SeatEvent,
  type Turn,
  type Wake,
} from './seat.machine.js';
export { companyOf, type Charter, type CompanyProfile, type SeatProfile } from './seat.profile.js';
export { startSeatHost, type SeatHost, type SeatHostOptions } from './seat.host.js';
export { seatKeys } from './seat.records.js';
export { startSeatsRuntime, type SeatsRuntime, type SeatsRuntimeOptions } from './seats.runtime.js';
export { startPlacement } from './placement.js';
export type { Placement, PlacementOptions, SeatHosts } from './placement.types.js';
export { placementKeys, watchPlacement, type PlacementView } from './placement.view.js';
export type { TurnDeps, TurnEvents } from './turn.deps.js';
export { PhaseFailure, runPhase, type PhaseInput, type PhaseResult } from './turn.phase.js';
export {
  draftOf,
  episodeId,
  episodeOf,
  noteOutcome,
  ReviewOutcome,
  type Episode,
  type EpisodeDraft,
} from './turn.episode.js';
export { parsePlan, parseReview, phaseMessage, systemPrompt } from './turn.prompts.js';
export {
  auxiliarySpendRecord,
  recordAuxiliarySpend,
  type AuxiliarySpend,
  type SpendDeps,
  type SpendSeat,
} from './spend.js';
