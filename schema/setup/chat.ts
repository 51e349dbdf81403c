/**
 * chat setup: the block is an enable-marker only; each agent seat has its own chat app, whose bot
 * token and signing secret live on the seat (chosen with the `seat` handle).
 */
import { requirement, SetupKind, type KindSpec } from './requirement.js';

export const chatSetup: KindSpec = {
  key: SetupKind.Chat,
  block_path: 'integrations.chat',
  inbound_path: '/webhooks/chat/{handle}',
  requirements: [
    requirement({
      field: 'enabled',
      label: 'Chat enabled',
      kind: 'toggle',
      config_path: 'integrations.chat',
      required: true,
      help: 'Marks chat as in use; true writes the (empty) block, false removes it.',
      where: 'Nothing to copy: this is the service’s own switch.',
      blocks: 'chat.disabled',
    }),
    requirement({
      field: 'seat',
      label: 'Seat',
      kind: 'handle',
      config_path: null,
      help: 'The agent seat whose own chat app the bot token and signing secret belong to.',
      where: 'A seat handle from the org chart.',
      blocks: 'chat.seat_unbound',
    }),
    requirement({
      field: 'bot_token',
      label: 'Bot token (per seat)',
      kind: 'secret',
      config_path: 'integrations.chat.bot_token',
      secret_name: 'SVC_CHAT_{SEAT}_BOT_TOKEN',
      per_seat: true,
      help: 'The seat’s app posts as itself with this token; sealed in the secret store.',
      where: 'The app’s OAuth page, after installing it to the workspace.',
      blocks: 'chat.seat_unbound',
    }),
    requirement({
      field: 'signing_secret',
      label: 'Signing secret (per seat)',
      kind: 'secret',
      config_path: 'integrations.chat.signing_secret',
      secret_name: 'SVC_CHAT_{SEAT}_SIGNING_SECRET',
      per_seat: true,
      help: 'Deliveries to /webhooks/chat/{handle} are verified with it.',
      where: 'The app’s basic information page (signing secret).',
      blocks: 'chat.webhook_unsigned',
    }),
  ],
};
