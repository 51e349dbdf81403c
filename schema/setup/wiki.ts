/** wiki setup: the same site block as tracker-a (the webhook secret signs self-hosted deliveries). */
import { SetupKind, type KindSpec } from './requirement.js';
import { siteRequirements } from './site.js';

export const wikiSetup: KindSpec = {
  key: SetupKind.Wiki,
  block_path: 'integrations.wiki',
  inbound_path: '/webhooks/wiki',
  one_of: [['url', 'cloud_id']],
  requirements: siteRequirements({
    block: 'wiki',
    prefix: 'WIKI',
    product: 'wiki',
    blocksPrefix: 'wiki',
    tokenPage: 'Profile → Personal access tokens (self-hosted) or account security → API tokens (cloud).',
    webhookPage: 'Administration → Webhooks: the secret of the webhook pointing at the public URL.',
    tokenUrl: '{url}/plugins/personalaccesstokens/usertokens.action',
    webhookUrl: '{url}/plugins/servlet/webhooks',
  }),
};
