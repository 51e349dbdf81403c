/** The seats' personal memory store and `needs` state. */
export {
  createMemoryStore,
  MEMORY_ROWS_PER_AGENT,
  scoreRow,
  termsOf,
  type MemoryStore,
} from './memory.store.js';
export { createNeedsBoard, NEEDS_KEPT_PER_SEAT, turnNeeds, type NeedsBoard } from './needs.board.js';
