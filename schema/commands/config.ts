/** Commands of the config writer (`actors/config`). */
import { ConfigWrite, ConfigWriteReply } from '../config.js';
import { defineCommand } from './command.js';

export const configCommands = {
  /** Store (and try to activate) a full document the gateway prepared; `outcome_unknown` on no answer. */
  write: defineCommand({
    area: 'config',
    verb: 'write',
    request: ConfigWrite,
    reply: ConfigWriteReply,
    timeoutMs: 15_000,
  }),
} as const;
