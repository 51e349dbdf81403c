export * from './node/index.js';
export * from './config/index.js';
export * from './integration/index.js';
export * from './secrets/index.js';
