/** Every inbound webhook receiver (spec "Webhook receivers"), over one set of dependencies. */
import type { RouteDef } from '../types.js';
import { chatRoutes } from './chat.routes.js';
import type { ReceiverDeps } from './receiver.js';
import { relayRoutes } from './relay.routes.js';
import { signedRoutes } from './signed.routes.js';

export function webhookRoutes(deps: ReceiverDeps): RouteDef[] {
  return [...signedRoutes(deps), ...chatRoutes(deps), ...relayRoutes(deps)];
}
