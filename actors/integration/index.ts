/** Integrations: provisioning passes against the vendors' APIs. */
export {
  integrationGuards,
  integrationMachine,
  noFacts,
  type IntegrationContext,
  type IntegrationEvent,
  type IntegrationFacts,
  type IntegrationInput,
  type IntegrationStateValue,
  type LastPass,
} from './integration.machine.js';
export {
  startIntegrationActors,
  type IntegrationActors,
  type IntegrationActorsOptions,
  type IntegrationRecords,
} from './integration.actors.js';
export { createPassHost, type PassHost, type PassHostOptions, type PassRequest } from './pass.host.js';
export { notificationOf, startIntegrationHost, type IntegrationHostOptions } from './integration.host.js';
export { parseDelivery, type Parsed } from './parse.js';
export { isOwnAction, peopleFrom, resolveSeat, SHARED_ACCOUNT, type People } from './people.js';
export { readWatchers, startRouterHost, watcherKey, type RouterHostOptions } from './router.host.js';
export { routeNotification, type RouteDecision } from './routing.js';
export { convertManifest, type Conversion, type ConversionResult } from './vendors/codehost-a.client.js';
