/** A wake for a seat's inbox, as a mention from the test, and putting it there. */
import { randomUUID } from 'node:crypto';
import { Subjects, type Bus } from '../../bus/index.js';
import type { InboxMessage } from '../../schema/index.js';

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
