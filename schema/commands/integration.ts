/**
 * Commands of the integration actors (`actors/integration`, one per setup kind, served on every node):
 * run a kind's provisioning pass, the same pass read-only, or remove it at the third party.
 */
import { IntegrationCommand, IntegrationReply } from '../setup/commands.js';
import { defineCommand } from './command.js';

/** A pass makes a few vendor calls of at most 10 s each: the sender waits for all of them. */
const timeoutMs = 120_000;

export const integrationCommands = {
  provision: defineCommand({
    area: 'integration',
    verb: 'provision',
    request: IntegrationCommand,
    reply: IntegrationReply,
    timeoutMs,
  }),
  check: defineCommand({
    area: 'integration',
    verb: 'check',
    request: IntegrationCommand,
    reply: IntegrationReply,
    timeoutMs,
  }),
  disconnect: defineCommand({
    area: 'integration',
    verb: 'disconnect',
    request: IntegrationCommand,
    reply: IntegrationReply,
    timeoutMs,
  }),
} as const;
