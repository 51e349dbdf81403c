export { openMemoryBus } from './memory-bus.js';
