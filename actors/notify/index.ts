export { startTransports } from './notify.host.js';
