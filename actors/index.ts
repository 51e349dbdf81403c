export * from './node/index.js';
export * from './config/index.js';
export * from './integration/index.js';
export * from './secrets/index.js';
export * from './seat/providers/index.js';
export * from './toolservers/index.js';
export * from './scheduler/index.js';
export * from './seat/index.js';
