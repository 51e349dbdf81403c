export { openMemoryBus, type MemoryBusOptions } from './memory-bus.js';
