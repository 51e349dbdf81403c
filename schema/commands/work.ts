/** The work tracker's one write (`actors/work`), answered by any node's work host. */
import { RetentionCommand, RetentionReply, WorkWrite, WorkWriteReply } from '../work/index.js';
import { defineCommand } from './command.js';

export const workCommands = {
  write: defineCommand({
    area: 'work',
    verb: 'write',
    request: WorkWrite,
    reply: WorkWriteReply,
    timeoutMs: 15_000,
  }),
  /** An operator's retention gesture (ops/work-tracker.md "Retention"). */
  retention: defineCommand({
    area: 'work',
    verb: 'retention',
    request: RetentionCommand,
    reply: RetentionReply,
    timeoutMs: 15_000,
  }),
} as const;
