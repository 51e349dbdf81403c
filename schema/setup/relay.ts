/**
 * relay setup. Its one setting, the app id (`integrations.relay_app_id`), is listed with tracker-a
 * (spec), so the relay lists no requirement of its own; its state follows that setting.
 */
import { SetupKind, type KindSpec } from './requirement.js';

export const relaySetup: KindSpec = {
  key: SetupKind.Relay,
  block_path: 'integrations.relay_app_id',
  inbound_path: '/webhooks/relay',
  requirements: [],
};
