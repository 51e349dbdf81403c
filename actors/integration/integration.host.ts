/**
 * The integration actor's host: consumes accepted raw deliveries (SVC_WEBHOOKS, SVC_WEBHOOKS_WIKI)
 * durably, parses each, drops an agent's own actions, records `webhook_received` (and, for a chat
 * message, `chat_message_received`: chat.event.ts) in the delivery's trace (the trace the router gives the
 * wakes, so a turn links back to its delivery), routes the parsed notification to the seats it wakes
 * (router.ts) and publishes it on `svc.notifications.inbound` for anyone listening. The raw delivery is
 * acked only once the records and the wakes are durable: a crash in between redelivers it, and every id
 * derives from the delivery key, so a redelivery stores nothing twice. The raw stream is the only queue:
 * routing in place saves a second durable hop per delivery (see ops/webhooks.md).
 */
import type { Logger } from 'pino';
import {
  publishEvent,
  Streams,
  Subjects,
  TerminateError,
  type Bus,
  type StoredMessage,
  type Subscription,
  newEvent,
} from '../../bus/index.js';
import {
  deliveryJson,
  deliveryKey,
  deliveryTrace,
  EventCategory,
  isForm,
  RawHeader,
  rawDeliveryMeta,
  uuidv5,
  type EventRecord,
  type InboundNotification,
  type RawDeliveryMeta,
} from '../../schema/index.js';
import { parseDelivery } from './parse.js';
import { isOwnAction, resolveSeat, type People } from './people.js';
import { chatMentions, chatMessageEvent, isChatMessage } from './chat.event.js';
import type { ParsedBodies } from './parsed-bodies.js';
import type { Router } from './router.js';
import type { SiteIntegration } from './shared-accounts.js';

/** Deliveries handled at once by one node (see ConsumerSpec.concurrency). */
export const ROUTING_CONCURRENCY = 64;

/** Parsed bodies above this are not copied into the notification (the raw store has them). */
const PAYLOAD_INLINE_MAX = 256 * 1024;
/** Namespace of `webhook_received` ids: uuidv5(namespace, delivery key), one event per delivery. */
const RECEIVED_NAMESPACE = '5f0c3f9e-2b7a-4c61-9d0e-8a4b1c7e6d21';

export interface IntegrationHostOptions {
  readonly bus: Bus;
  /** The people of the active revision (resolved); read per delivery. */
  people(): People;
  readonly logger: Logger;
  /** Wakes the seats a notification names. */
  readonly router: Router;
  /** Durable consumer name (one per fleet). */
  readonly durable?: string;
  /** Names this node in the `source` of the events it records. */
  readonly nodeId?: string;
  /** Bodies this node's receivers parsed already (the same object their `parsed` handoff is given). */
  readonly parsed?: ParsedBodies;
  /** The shared account's identities as the vendor knows them (shared-accounts.ts); never rejects. */
  sharedAccount?(pipeline: SiteIntegration): Promise<readonly string[]>;
}

/** The `webhook_received` record of one notification, at the time the gateway received it. */
export function receivedEvent(n: InboundNotification, source: string): EventRecord {
  const at = new Date(n.received_at);
  return newEvent({
    id: uuidv5(RECEIVED_NAMESPACE, n.id),
    type: 'webhook_received',
    category: EventCategory.Webhook,
    source,
    summary: n.summary || `${n.vendor} ${n.event || 'delivery'}`,
    actor: `webhook:${n.vendor}`,
    ...(n.seat !== null ? { agent_id: n.seat } : {}),
    payload: {
      provider: n.vendor,
      delivery_id: n.delivery_id,
      kind: n.event,
      pipeline: n.pipeline,
      seat: n.seat,
    },
    trace: { trace_id: deliveryTrace(n.id), parent_span_id: null },
    ...(Number.isNaN(at.getTime()) ? {} : { now: at }),
  });
}

/** The body's JSON; `handed` is the receiver's parse of these bytes as JSON, when it was kept for routing. */
function bodyJson(meta: RawDeliveryMeta, data: Uint8Array, handed: unknown): unknown {
  if (handed !== undefined && !isForm(meta.pipeline, meta.content_type)) return handed;
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  return deliveryJson(meta.pipeline, meta.content_type, text);
}

/**
 * One raw delivery -> its notification, or null when it is an agent's own action (`shared`: the shared
 * account's identities the vendor answered, for tracker-a and wiki). Exported for tests.
 */
export function notificationOf(
  people: People,
  msg: Pick<StoredMessage, 'stream' | 'seq' | 'headers' | 'data'>,
  bodies?: ParsedBodies,
  shared: readonly string[] = [],
): { notification: InboundNotification | null; meta: RawDeliveryMeta } {
  const meta = rawDeliveryMeta(msg.headers);
  const id = deliveryKey(meta.pipeline, meta.seat || null, meta.delivery_id);
  const json = bodyJson(meta, msg.data, bodies?.take(id, msg.data));
  const parsed = parseDelivery(meta.pipeline, json, meta.event);
  if (isOwnAction(people, meta.pipeline, parsed.trigger, parsed.selfIds, shared))
    return { notification: null, meta };
  // Not parsed again: every part is built here, from checked metadata and the parsers' typed output, in
  // the schema's key order (a test holds it to `InboundNotification.parse` of itself).
  const notification: InboundNotification = {
    id,
    vendor: meta.vendor,
    pipeline: meta.pipeline,
    event: meta.event,
    delivery_id: meta.delivery_id,
    received_at: meta.received_at,
    seat: meta.seat || null,
    trigger: parsed.trigger,
    summary: parsed.summary.slice(0, 500),
    subject: parsed.subject,
    mentions: (meta.pipeline === 'chat'
      ? chatMentions(parsed.mentions, meta.seat || null, parsed.selfIds ?? [])
      : parsed.mentions
    ).slice(0, 100),
    named: parsed.named.slice(0, 100),
    raw: { stream: msg.stream, seq: msg.seq },
    payload: msg.data.byteLength <= PAYLOAD_INLINE_MAX ? (json ?? null) : null,
  };
  return { notification, meta };
}

export async function startIntegrationHost(opts: IntegrationHostOptions): Promise<Subscription> {
  const { bus, logger } = opts;
  const durable = opts.durable ?? 'integration';
  const source = opts.nodeId ? `${opts.nodeId}/integration` : 'integration';
  const encoder = new TextEncoder();
  const handle = async (msg: StoredMessage): Promise<void> => {
    // Known once asked (the first delivery after a start or a credential change waits for the vendor).
    const pipeline = msg.headers[RawHeader.Pipeline];
    const shared =
      opts.sharedAccount && (pipeline === 'tracker-a' || pipeline === 'wiki')
        ? await opts.sharedAccount(pipeline)
        : [];
    let result;
    try {
      result = notificationOf(opts.people(), msg, opts.parsed, shared);
    } catch (error) {
      // Not a delivery this build can read: keep it in the audit store, never loop on it.
      logger.error(
        { event: 'webhook_unparseable', stream: msg.stream, seq: msg.seq, err: error },
        'webhook_unparseable',
      );
      throw new TerminateError('unreadable raw delivery', { cause: error });
    }
    const { notification, meta } = result;
    if (notification === null) {
      logger.info(
        {
          event: 'webhook_own_action_dropped',
          pipeline: meta.pipeline,
          delivery_id: meta.delivery_id,
          seq: msg.seq,
        },
        'webhook_own_action_dropped',
      );
      return;
    }
    // The event first: the turns the notification starts come later in its trace.
    await publishEvent(bus, receivedEvent(notification, source));
    if (isChatMessage(notification)) {
      const people = opts.people();
      const mentioned = [
        ...new Set(
          notification.mentions
            .map((m) => resolveSeat(people, notification.pipeline, m))
            .filter((h): h is string => h !== null),
        ),
      ];
      await publishEvent(bus, chatMessageEvent(notification, source, mentioned));
    }
    await opts.router.route(notification);
    // For observers (a core message: at most once); the wakes above are what routing guarantees. Not
    // built when the bus knows nobody listens (most nodes have no observer).
    if (!bus.listened(Subjects.notificationsInbound)) return;
    bus.emit(Subjects.notificationsInbound, encoder.encode(JSON.stringify(notification)), {
      // Listeners that care for a few pipelines skip the others without decoding them.
      [RawHeader.Pipeline]: notification.pipeline,
    });
  };
  const subs = await Promise.all(
    // Deliveries are independent: many in flight share the bus's commits, so routing keeps up with
    // acceptance under a burst instead of paying a commit per step of each delivery.
    [Streams.Webhooks, Streams.WebhooksWiki].map((stream) =>
      bus.consume(stream, { durable, concurrency: ROUTING_CONCURRENCY }, handle),
    ),
  );
  return { stop: async () => void (await Promise.all(subs.map((s) => s.stop()))) };
}
