/**
 * A seat wake: one message on `svc.agent.<handle>.inbox`, never for a human seat.
 * The router of inbound notifications and the scheduler publish the same shape.
 */
import { z } from 'zod';

export const InboxKind = {
  Notification: 'notification',
  Schedule: 'schedule',
  Mention: 'mention',
} as const;
export type InboxKind = (typeof InboxKind)[keyof typeof InboxKind];

export const InboxMessage = z.object({
  /** Unique per (cause, seat): a redelivered cause publishes the same id, so the inbox stores it once. */
  id: z.string().min(1),
  /** Open set: `notification`, `schedule`, `mention`, and whatever later wakes need. */
  kind: z.string().min(1),
  /** Where it came from: `webhook:<vendor>`, `schedule:<name>`, … */
  source: z.string().min(1),
  /** RFC 3339. */
  received_at: z.string(),
  trace_id: z.string(),
  /** One line a person (or a prompt) can read. */
  summary: z.string(),
  payload: z.record(z.string(), z.unknown()),
  /**
   * The seat whose message this is, when the sender resolved to one (a human's chat message or comment):
   * a turn it wakes answers the questions the seat asked that human.
   */
  from: z.string().min(1).nullable().optional(),
});
export type InboxMessage = z.infer<typeof InboxMessage>;
