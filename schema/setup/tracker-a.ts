/** tracker-a setup: the site block plus the relay app id (listed with tracker-a only). */
import { requirement, SetupKind, type KindSpec } from './requirement.js';
import { siteRequirements } from './site.js';

export const trackerASetup: KindSpec = {
  key: SetupKind.TrackerA,
  block_path: 'integrations.tracker_a',
  inbound_path: '/webhooks/tracker-a',
  one_of: [['url', 'cloud_id']],
  requirements: [
    ...siteRequirements({
      block: 'tracker_a',
      prefix: 'TRACKER_A',
      product: 'tracker-a',
      blocksPrefix: 'tracker_a',
      tokenPage: 'Profile → Personal access tokens (self-hosted) or account security → API tokens (cloud).',
      webhookPage:
        'Administration → System → WebHooks: the secret field of the webhook pointing at the public URL.',
      tokenUrl: '{url}/secure/ViewProfile.jspa',
      webhookUrl: '{url}/plugins/servlet/webhooks',
    }),
    requirement({
      field: 'relay_app_id',
      label: 'Relay app id',
      kind: 'id',
      config_path: 'integrations.relay_app_id',
      help: 'Cloud events arrive through the relay; its invocation tokens are accepted only with this audience.',
      where: 'The relay app’s settings page (app id).',
      blocks: 'relay.audience_unknown',
    }),
  ],
};
