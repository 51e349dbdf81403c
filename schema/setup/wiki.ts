/**
 * wiki setup: the same site block as tracker-a (the webhook secret signs self-hosted deliveries), plus the
 * cloud edition's shared token, which has no document field and lives in the secret store only.
 */
import { requirement, SetupKind, type KindSpec } from './requirement.js';
import { siteRequirements } from './site.js';

export const wikiSetup: KindSpec = {
  key: SetupKind.Wiki,
  block_path: 'integrations.wiki',
  inbound_path: '/webhooks/wiki',
  one_of: [['url', 'cloud_id']],
  requirements: [
    ...siteRequirements({
      block: 'wiki',
      prefix: 'WIKI',
      product: 'wiki',
      blocksPrefix: 'wiki',
      tokenPage: 'Profile → Personal access tokens (self-hosted) or account security → API tokens (cloud).',
      webhookPage: 'Administration → Webhooks: the secret of the webhook pointing at the public URL.',
      tokenUrl: '{url}/plugins/personalaccesstokens/usertokens.action',
      webhookUrl: '{url}/plugins/servlet/webhooks',
    }),
    // Not required: only /webhooks/wiki/{event} reads it (503 while unset); a self-hosted wiki never sends it.
    requirement({
      field: 'webhook_token',
      label: 'Webhook token (cloud)',
      kind: 'secret',
      config_path: null,
      secret_name: 'SVC_WIKI_WEBHOOK_TOKEN',
      mintable: true,
      help: 'Cloud deliveries to /webhooks/wiki/{event} carry it in X-Service-Token or as ?token=; generate one here and put it in the cloud webhook.',
      where:
        'The cloud edition’s webhook settings: the X-Service-Token header, or ?token= on the public URL.',
      blocks: 'wiki.cloud_webhook_closed',
    }),
  ],
};
