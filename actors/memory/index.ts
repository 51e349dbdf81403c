/** The seats' personal memory store and where `ask_human` records a need. */
export { createMemoryStore, scoreRow, type MemoryStore } from './memory.store.js';
export { createNeedsRelay, type NeedsRelay } from './needs.relay.js';
