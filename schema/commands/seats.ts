/**
 * Operator commands to a seat's host. `pause` / `resume` / `clearNeeds` go to any one seats node (a queue
 * group); a node that does not hold the seat forwards to the holder's own subject (`pauseAt(node)`, ...).
 */
import { SeatCommandReply, SeatNeedsClear, SeatNeedsReply, SeatPause, SeatResume } from '../seats.js';
import { defineCommand } from './command.js';

const seatsTimeoutMs = 10_000;
/** A forward is one hop inside the fleet: shorter than the sender's own wait. */
const forwardTimeoutMs = 5_000;

export const seatsCommands = {
  pause: defineCommand({
    area: 'seats',
    verb: 'pause',
    request: SeatPause,
    reply: SeatCommandReply,
    timeoutMs: seatsTimeoutMs,
  }),
  resume: defineCommand({
    area: 'seats',
    verb: 'resume',
    request: SeatResume,
    reply: SeatCommandReply,
    timeoutMs: seatsTimeoutMs,
  }),
  clearNeeds: defineCommand({
    area: 'seats',
    verb: 'clear_needs',
    request: SeatNeedsClear,
    reply: SeatNeedsReply,
    timeoutMs: seatsTimeoutMs,
  }),
  /** `pause` answered only by `node`, for seats it runs. */
  pauseAt: (node: string) =>
    defineCommand({
      area: 'seats',
      address: node,
      verb: 'pause',
      request: SeatPause,
      reply: SeatCommandReply,
      timeoutMs: forwardTimeoutMs,
    }),
  resumeAt: (node: string) =>
    defineCommand({
      area: 'seats',
      address: node,
      verb: 'resume',
      request: SeatResume,
      reply: SeatCommandReply,
      timeoutMs: forwardTimeoutMs,
    }),
  clearNeedsAt: (node: string) =>
    defineCommand({
      area: 'seats',
      address: node,
      verb: 'clear_needs',
      request: SeatNeedsClear,
      reply: SeatNeedsReply,
      timeoutMs: forwardTimeoutMs,
    }),
} as const;
