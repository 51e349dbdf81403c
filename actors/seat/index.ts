/** Agent seats and the turn engine. */
export { createBudget, monthOf, type Budget, type BudgetRefusal } from './budget.js';
export { type Wake } from './seat.machine.js';
export { seatKeys, watchPauses } from './seat.records.js';
export { seatProfiles } from './counterparty.host.js';
export { startSeatsRuntime } from './seats.runtime.js';
export type { LocalProgress } from './seat.events.js';
export type { SeatsRuntime } from './seats.runtime.types.js';
export { startPlacement } from './placement.js';
export type { Placement } from './placement.types.js';
export { placementKeys, watchPlacement } from './placement.view.js';
export { draftOf, episodeId, episodeOf, noteOutcome } from './turn.episode.js';
export { auxiliarySpendRecord, recordAuxiliarySpend } from './spend.js';
export { builtSpend } from './spend-bytes.js';
export { openSeatLog } from './seat.log.js';
