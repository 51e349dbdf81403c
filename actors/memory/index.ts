/** The seats' personal memory store and where `ask_human` records a need. */
export { createMemoryStore, scoreRow, type MemoryStore } from './memory.store.js';
export { type MemoryEmbedder } from './memory.embeddings.js';
export { createNeedsRelay, type NeedsRelay } from './needs.relay.js';
