export { startSecretsHost } from './secrets.host.js';
