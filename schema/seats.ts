/**
 * Operator commands to a seat's host (`Commands.seats.pause` / `Commands.seats.resume`, sent by
 * `POST /agents/{id}/pause` and `/resume`) and their reply.
 */
import { z } from 'zod';
import { Paused } from './events/payloads/agent-state.js';
import { SEAT_REASON_MAX } from './text-grammars.js';

/** The route's JSON body. */
export const PauseBody = z.strictObject({
  reason: z.string().max(SEAT_REASON_MAX).default(''),
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

export const ResumeBody = z.strictObject({ reason: z.string().max(SEAT_REASON_MAX).optional() });

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

/** `POST /agents/{id}/needs/clear`: the questions to clear (none named: every open one). */
export const NeedsClearBody = z.strictObject({ ids: z.array(z.string().min(1).max(200)).max(64).optional() });

export const SeatNeedsClear = z.object({
  seat: z.string().min(1),
  by: z.string(),
  ids: z.array(z.string()).optional(),
});
export type SeatNeedsClear = z.infer<typeof SeatNeedsClear>;

export const SeatNeedsReply = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    handle: z.string(),
    /** The questions this command closed (named ones not open are not in it). */
    cleared: z.array(z.string()),
    /** The questions still open afterwards. */
    open: z.array(z.string()),
  }),
  z.object({ ok: z.literal(false), error: z.enum(['not_found']), detail: z.string() }),
]);
export type SeatNeedsReply = z.infer<typeof SeatNeedsReply>;
