/**
 * monitor setup. The company document has no monitor block, so its one credential, the shared token
 * `/webhooks/monitor` compares with `X-Service-Token`, lives in the secret store only.
 */
import { requirement, SetupKind, type KindSpec } from './requirement.js';

/** The receiving route answers 503 to a token shorter than this (spec "Limits"). */
export const MONITOR_TOKEN_MIN_LENGTH = 26;

export const monitorSetup: KindSpec = {
  key: SetupKind.Monitor,
  block_path: null,
  inbound_path: '/webhooks/monitor',
  requirements: [
    requirement({
      field: 'webhook_token',
      label: 'Webhook token',
      kind: 'secret',
      config_path: null,
      secret_name: 'SVC_MONITOR_WEBHOOK_TOKEN',
      required: true,
      mintable: true,
      min_length: MONITOR_TOKEN_MIN_LENGTH,
      help: `Alerts must carry it in X-Service-Token; at least ${MONITOR_TOKEN_MIN_LENGTH} characters. Generate one and paste it into the alert channel.`,
      where: 'The monitor’s alert channel (webhook) settings: custom header X-Service-Token.',
      blocks: 'monitor.webhook_closed',
    }),
  ],
};
