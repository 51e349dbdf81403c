/** Integrations: provisioning passes against the vendors' APIs. */
export { startIntegrationActors, type IntegrationActors } from './integration.actors.js';
export { startArrivalRollups, type ArrivalRollups } from './arrivals.rollup.js';
export { createPassHost, type PassRequest } from './pass.host.js';
export { receivedEvent, startIntegrationHost } from './integration.host.js';
export { peopleFrom, type People } from './people.js';
export { ParsedBodies } from './parsed-bodies.js';
export { SharedAccounts, type SiteIntegration } from './shared-accounts.js';
export { openRouter } from './router.js';
export { drainRetiredNotify } from './retired-notify.js';
export { routeNotification } from './routing.js';
export { convertManifest } from './vendors/codehost-a.client.js';
export { readTrackerBSkillPages, readWikiSkillPages, type VendorSkillPage } from './vendors/index.js';
