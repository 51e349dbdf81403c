export type { WorkContext } from './work.types.js';
export { startWorkHost } from './work.host.js';
export type { WorkHost } from './work.host.js';
