/**
 * Operator commands to a seat's host (`Commands.seats.pause` / `Commands.seats.resume`, sent by
 * `POST /agents/{id}/pause` and `/resume`) and their reply.
 */
import { z } from 'zod';
import { Paused } from './events/payloads/agent-state.js';

/** The route's JSON body. */
export const PauseBody = z.object({
  reason: z.string().max(600).default(''),
  stop_running: z.boolean().default(false),
});

export const SeatPause = z.object({
  /** A handle or a role name, as `/agents/{id}` accepts. */
  seat: z.string().min(1),
  by: z.string(),
  reason: z.string(),
  stop_running: z.boolean(),
});
export type SeatPause = z.infer<typeof SeatPause>;

export const ResumeBody = z.object({ reason: z.string().max(600).optional() });

export const SeatResume = z.object({
  seat: z.string().min(1),
  by: z.string(),
  reason: z.string().optional(),
});
export type SeatResume = z.infer<typeof SeatResume>;

export const SeatCommandReply = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    handle: z.string(),
    /** The pause in force after the command. */
    paused: Paused.nullable(),
    /** Whether the command changed it (absent from nodes of earlier releases: read as changed). */
    changed: z.boolean().optional(),
  }),
  z.object({ ok: z.literal(false), error: z.enum(['not_found']), detail: z.string() }),
]);
export type SeatCommandReply = z.infer<typeof SeatCommandReply>;
