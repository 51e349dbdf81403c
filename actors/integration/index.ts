/** Integrations: provisioning passes against the vendors' APIs. */
export { createPassHost, type PassHost, type PassHostOptions, type PassRequest } from './pass.host.js';
