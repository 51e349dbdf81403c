/** Every integration kind setup serves, in the order the spec lists them. */
import { chatSetup } from './chat.js';
import { codehostASetup } from './codehost-a.js';
import { codehostBSetup } from './codehost-b.js';
import { monitorSetup } from './monitor.js';
import { relaySetup } from './relay.js';
import type { KindSpec } from './requirement.js';
import { trackerASetup } from './tracker-a.js';
import { trackerBSetup } from './tracker-b.js';
import { wikiSetup } from './wiki.js';

export const setupKinds: readonly KindSpec[] = [
  trackerASetup,
  wikiSetup,
  relaySetup,
  chatSetup,
  codehostASetup,
  codehostBSetup,
  trackerBSetup,
  monitorSetup,
];

export function kindSpec(key: string): KindSpec | null {
  return setupKinds.find((k) => k.key === key) ?? null;
}
