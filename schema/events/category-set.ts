/**
 * The closed set of eight categories; the type -> category map lives in `categories.ts`. A file without zod:
 * a client command that checks a `--category` flag loads this alone.
 */
export const EventCategory = {
  A2a: 'a2a',
  Decision: 'decision',
  Learning: 'learning',
  Lifecycle: 'lifecycle',
  Notification: 'notification',
  System: 'system',
  Task: 'task',
  Webhook: 'webhook',
} as const;
export type EventCategory = (typeof EventCategory)[keyof typeof EventCategory];
