/**
 * The command catalogue: every command svc sends on the bus, one entry each, grouped by the actor that
 * answers it (one file per area). Nothing outside this folder spells a `svc.cmd.*` subject.
 */
import { configCommands } from './config.js';
import { integrationCommands } from './integration.js';
import { sandboxCommands } from './sandbox.js';
import { pagesCommands } from './pages.js';
import { seatsCommands } from './seats.js';
import { secretsCommands } from './secrets.js';
import { workCommands } from './work.js';

export const Commands = {
  config: configCommands,
  integration: integrationCommands,
  pages: pagesCommands,
  secrets: secretsCommands,
  seats: seatsCommands,
  work: workCommands,
  sandbox: sandboxCommands,
} as const;

export { defineCommand } from './command.js';
export type { Command } from './command.js';
