/** tracker-a and wiki share one block shape: `url` (self-hosted) or `cloud_id` (cloud), a token, a webhook secret. */
import { requirement, type Requirement } from './requirement.js';

export function siteRequirements(opts: {
  block: 'tracker_a' | 'wiki';
  prefix: string;
  product: string;
  blocksPrefix: string;
  tokenPage: string;
  webhookPage: string;
  /** Templates; `{url}` is the block's resolved base URL (null when unknown). */
  tokenUrl: string;
  webhookUrl: string;
}): Requirement[] {
  const at = (field: string): string => `integrations.${opts.block}.${field}`;
  return [
    requirement({
      field: 'url',
      label: `${opts.product} base URL (self-hosted)`,
      kind: 'url',
      config_path: at('url'),
      help: `The address of your self-hosted ${opts.product}. Leave empty for the cloud edition and give the cloud id instead.`,
      where: 'The address you open the product at, without a path.',
      blocks: `${opts.blocksPrefix}.site_missing`,
    }),
    requirement({
      field: 'cloud_id',
      label: `${opts.product} cloud id`,
      kind: 'id',
      config_path: at('cloud_id'),
      help: 'The cloud site id (cloud edition only; not together with the base URL).',
      where: 'The site administration page of the cloud edition shows it.',
      blocks: `${opts.blocksPrefix}.site_missing`,
    }),
    requirement({
      field: 'email',
      label: 'Account email (cloud)',
      kind: 'text',
      config_path: at('email'),
      help: 'The account the API token belongs to; the cloud edition authenticates email and token together.',
      where: 'The profile of the account that created the token.',
      blocks: `${opts.blocksPrefix}.credentials_missing`,
    }),
    requirement({
      field: 'token',
      label: 'API token',
      kind: 'secret',
      config_path: at('token'),
      secret_name: `SVC_${opts.prefix}_TOKEN`,
      required: true,
      help: 'The service reads and writes through this token; it is sealed in the secret store.',
      where: opts.tokenPage,
      vendor_url: opts.tokenUrl,
      blocks: `${opts.blocksPrefix}.credentials_missing`,
    }),
    requirement({
      field: 'webhook_secret',
      label: 'Webhook secret',
      kind: 'secret',
      config_path: at('webhook_secret'),
      secret_name: `SVC_${opts.prefix}_WEBHOOK_SECRET`,
      mintable: true,
      help: 'Self-hosted deliveries are HMAC-SHA256 signed with it; generate one here and paste it into the webhook.',
      where: opts.webhookPage,
      vendor_url: opts.webhookUrl,
      blocks: `${opts.blocksPrefix}.webhook_unsigned`,
    }),
  ];
}
