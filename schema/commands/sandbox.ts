/**
 * Commands to the sandbox supervisor. A run is watched by the node that launched it, so an answer goes to
 * that node's own subject (`answerAt(node)`), wherever the answering turn runs.
 */
import {
  SandboxAnswerReply,
  SandboxAnswerRequest,
  SandboxCancelReply,
  SandboxCancelRequest,
} from '../sandbox/index.js';
import { defineCommand } from './command.js';

export const sandboxCommands = {
  answerAt: (node: string) =>
    defineCommand({
      area: 'sandbox',
      address: node,
      verb: 'answer',
      request: SandboxAnswerRequest,
      reply: SandboxAnswerReply,
      timeoutMs: 10_000,
    }),
  cancelAt: (node: string) =>
    defineCommand({
      area: 'sandbox',
      address: node,
      verb: 'cancel',
      request: SandboxCancelRequest,
      reply: SandboxCancelReply,
      // The cancel waits behind the run's move in progress (a watch, an answer's delivery).
      timeoutMs: 20_000,
    }),
} as const;
