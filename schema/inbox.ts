/**
 * A message on one agent seat's inbox, `svc.agent.<handle>.inbox` (CONTRACTS.md §6; never for a
 * human seat). Defined here in the shape the contract fixes; the webhooks part owns this file.
 */
import { z } from 'zod';

export const InboxKind = { Notification: 'notification', Schedule: 'schedule', Mention: 'mention' } as const;
export type InboxKind = (typeof InboxKind)[keyof typeof InboxKind];

export const InboxMessage = z.object({
  id: z.string().min(1),
  /** The named kinds, or a later one arriving as itself. */
  kind: z.union([z.enum([InboxKind.Notification, InboxKind.Schedule, InboxKind.Mention]), z.string().min(1)]),
  /** Who sent it (`scheduler`, `webhooks/<vendor>`, ...). */
  source: z.string(),
  received_at: z.string().datetime({ offset: true }),
  trace_id: z.string(),
  summary: z.string(),
  payload: z.record(z.string(), z.unknown()),
});
export type InboxMessage = z.infer<typeof InboxMessage>;
