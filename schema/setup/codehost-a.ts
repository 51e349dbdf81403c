/** codehost-a setup: one webhook secret (required) for the organisation webhook. */
import { requirement, SetupKind, type KindSpec } from './requirement.js';

export const codehostASetup: KindSpec = {
  key: SetupKind.CodehostA,
  block_path: 'integrations.codehost_a',
  inbound_path: '/webhooks/codehost-a',
  requirements: [
    requirement({
      field: 'webhook_secret',
      label: 'Webhook secret',
      kind: 'secret',
      config_path: 'integrations.codehost_a.webhook_secret',
      secret_name: 'SVC_CODEHOST_A_WEBHOOK_SECRET',
      required: true,
      mintable: true,
      help: 'Deliveries carry an HMAC-SHA256 of the body in x-codehost-a-signature-256 keyed with it.',
      where: 'Organisation settings → Webhooks: the secret of the webhook pointing at the public URL.',
      blocks: 'codehost_a.webhook_unsigned',
    }),
  ],
};
