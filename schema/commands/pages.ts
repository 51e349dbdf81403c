/** The knowledge base's command (`actors/pages`): one change, answered once the log decided it. */
import { PageWrite, PageWriteReply } from '../pages/index.js';
import { defineCommand } from './command.js';

export const pagesCommands = {
  write: defineCommand({
    area: 'pages',
    verb: 'write',
    request: PageWrite,
    reply: PageWriteReply,
    timeoutMs: 15_000,
  }),
} as const;
