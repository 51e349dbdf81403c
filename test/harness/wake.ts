/** A wake for a seat's inbox, as a mention from the test, and putting it there. */
import { randomUUID } from 'node:crypto';
import { Subjects, type Bus } from '../../bus/index.js';
import type { InboundNotification, InboxMessage } from '../../schema/index.js';

export const mentionWake = (summary: string, over: Partial<InboxMessage> = {}): InboxMessage => ({
  id: randomUUID(),
  kind: 'mention',
  source: 'test',
  received_at: new Date().toISOString(),
  trace_id: randomUUID().replaceAll('-', ''),
  summary,
  payload: {},
  ...over,
});

/** Appends `wake` to the seat's inbox on `bus`; resolves once it is stored. */
export async function queueWake(bus: Bus, handle: string, wake: InboxMessage): Promise<void> {
  await bus.publish(Subjects.agentInbox(handle), new TextEncoder().encode(JSON.stringify(wake)));
}

/** A parsed vendor delivery (tracker-b unless told) whose author is `trigger`, for a wake's `payload.notification`. */
export function notificationFrom(
  trigger: InboundNotification['trigger'],
  pipeline: InboundNotification['pipeline'] = 'tracker-b',
): InboundNotification {
  return {
    id: `${pipeline}:d-1`,
    vendor: pipeline,
    pipeline,
    event: 'issue',
    delivery_id: 'd-1',
    received_at: '2026-12-01T10:00:00.000Z',
    seat: null,
    trigger,
    summary: 'Item 7 updated',
    subject: { kind: 'issue', id: 'item-7', key: null, title: 'Item 7', space: null, url: null },
    mentions: [],
    named: [],
    raw: { stream: 'SVC_WEBHOOKS', seq: 1 },
    payload: null,
  };
}
