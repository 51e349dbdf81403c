/**
 * `chat_message_received` (spec "Events"): one record per chat message delivered to a seat's chat app,
 * in the delivery's trace (so the turn it wakes links back to it), its id derived from the delivery key
 * (a redelivery records it once). A mention of the seat's own bot user reads as a mention of the seat.
 */
import { newEvent } from '../../bus/index.js';
import {
  deliveryTrace,
  EventCategory,
  uuidv5,
  type EventRecord,
  type InboundNotification,
} from '../../schema/index.js';
import { at, isRecord, str } from './json-paths.js';

/** Namespace of `chat_message_received` ids: uuidv5(namespace, delivery key). */
const CHAT_NAMESPACE = '0b9d4e2a-7c1f-4f3e-a6d8-2e5b9c4a7f13';
/** Chat event types that carry a message (an interaction or a reaction is not one). */
const MESSAGE_EVENTS = new Set(['message', 'app_mention']);
const TEXT_MAX = 4000;

/** Whether a notification is a chat message (and so gets a `chat_message_received`). */
export const isChatMessage = (n: InboundNotification): boolean =>
  n.pipeline === 'chat' && MESSAGE_EVENTS.has(n.event);

/**
 * The mentions of a chat delivery as the router reads them: the seat's own bot user (`selfIds`, from the
 * delivery's `authorizations`) becomes the seat's handle, so the seat's wake is a `mention`.
 */
export function chatMentions(
  mentions: readonly string[],
  seat: string | null,
  selfIds: readonly string[],
): string[] {
  if (seat === null) return [...mentions];
  return [...new Set(mentions.map((m) => (selfIds.includes(m) ? seat : m)))];
}

/** The record, at the time the gateway received the delivery. */
export function chatMessageEvent(
  n: InboundNotification,
  source: string,
  /** The seats the message mentions, resolved (the addressed seat included when its bot was mentioned). */
  mentioned: readonly string[],
): EventRecord {
  const receivedAt = new Date(n.received_at);
  const e = isRecord(at(n.payload, 'event')) ? at(n.payload, 'event') : n.payload;
  const text = str(e, 'text') ?? '';
  return {
    ...newEvent({
      type: 'chat_message_received',
      category: EventCategory.Webhook,
      source,
      summary: n.summary || 'chat message',
      actor: 'webhook:chat',
      ...(n.seat !== null ? { agent_id: n.seat } : {}),
      payload: {
        seat: n.seat,
        delivery_id: n.delivery_id,
        event: n.event,
        channel: n.subject.key,
        ts: n.subject.id,
        user: n.trigger?.id ?? null,
        text_excerpt: text.length > TEXT_MAX ? `${text.slice(0, TEXT_MAX - 1)}…` : text,
        mentions: [...mentioned],
      },
      trace: { trace_id: deliveryTrace(n.id), parent_span_id: null },
      ...(Number.isNaN(receivedAt.getTime()) ? {} : { now: receivedAt }),
    }),
    id: uuidv5(CHAT_NAMESPACE, n.id),
  };
}
