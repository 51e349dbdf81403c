/**
 * The router of inbound notifications: a durable work-queue consumer of `svc.notifications.inbound`
 * that decides recipients (routing.ts), keeps wiki page watchers in a KV bucket, and publishes one
 * `InboxMessage` per agent seat on `svc.agent.<handle>.inbox` (never for a human seat). The message is
 * acked only after every inbox publish is durable; ids are per (notification, seat), so a redelivery
 * stores nothing twice.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import {
  Buckets,
  Streams,
  Subjects,
  TerminateError,
  type Bus,
  type Kv,
  type Subscription,
} from '../../bus/index.js';
import { deliveryTrace, InboundNotification, InboxKind, InboxMessage } from '../../schema/index.js';
import type { People } from './people.js';
import { routeNotification } from './routing.js';

export interface RouterHostOptions {
  readonly bus: Bus;
  people(): People;
  readonly logger: Logger;
  readonly durable?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** KV keys are letters, digits, `_`, `-`: page ids that are anything else are hashed. */
export function watcherKey(pageId: string): string {
  return /^[A-Za-z0-9_-]{1,100}$/.test(pageId)
    ? `page_${pageId}`
    : `h_${createHash('sha256').update(pageId).digest('hex')}`;
}

export async function readWatchers(
  kv: Kv,
  pageId: string,
): Promise<{ handles: string[]; revision: number | null }> {
  const entry = await kv.get(watcherKey(pageId));
  if (entry === null) return { handles: [], revision: null };
  try {
    const value: unknown = JSON.parse(decoder.decode(entry.value));
    return {
      handles: Array.isArray(value) ? value.filter((h): h is string => typeof h === 'string') : [],
      revision: entry.revision,
    };
  } catch {
    return { handles: [], revision: entry.revision };
  }
}

async function addWatchers(kv: Kv, pageId: string, add: readonly string[]): Promise<void> {
  // Compare-and-set loop: two nodes adding watchers to one page never lose either's addition.
  for (let attempt = 0; attempt < 5; attempt++) {
    const { handles, revision } = await readWatchers(kv, pageId);
    const next = encoder.encode(JSON.stringify([...new Set([...handles, ...add])]));
    try {
      if (revision === null) await kv.create(watcherKey(pageId), next);
      else await kv.update(watcherKey(pageId), next, revision);
      return;
    } catch (error) {
      if (attempt === 4) throw error;
    }
  }
}

export async function startRouterHost(opts: RouterHostOptions): Promise<Subscription> {
  const { bus, logger } = opts;
  const watchers = await bus.kv({ name: Buckets.WikiWatchers, history: 4 });
  return bus.consume(Streams.Notify, { durable: opts.durable ?? 'router' }, async (msg) => {
    let n: InboundNotification;
    try {
      n = InboundNotification.parse(JSON.parse(decoder.decode(msg.data)));
    } catch (error) {
      logger.error({ event: 'notification_unreadable', seq: msg.seq, err: error }, 'notification_unreadable');
      throw new TerminateError('unreadable notification', { cause: error });
    }
    const people = opts.people();
    const pageId = n.pipeline === 'wiki' ? n.subject.id : null;
    const current = pageId !== null ? (await readWatchers(watchers, pageId)).handles : [];
    const decision = routeNotification(n, people, current);
    if (pageId !== null && decision.addWatchers.length > 0)
      await addWatchers(watchers, pageId, decision.addWatchers);
    const fields = { notification: n.id, step: decision.step };
    if (decision.dropped !== null) {
      logger.info(
        { ...fields, event: 'notification_dropped', reason: decision.dropped },
        'notification_dropped',
      );
      return;
    }
    if (decision.skippedHumans.length > 0)
      logger.debug(
        { ...fields, event: 'notification_human_skipped', seats: decision.skippedHumans },
        'human seats skipped',
      );
    const trace = deliveryTrace(n.id);
    for (const handle of decision.recipients) {
      const message = InboxMessage.parse({
        id: `${n.id}:${handle}`,
        kind: decision.mentioned.includes(handle) ? InboxKind.Mention : InboxKind.Notification,
        source: `webhook:${n.vendor}`,
        received_at: n.received_at,
        trace_id: trace,
        summary: n.summary,
        payload: { notification: n },
      });
      await bus.publish(Subjects.agentInbox(handle), encoder.encode(JSON.stringify(message)), {
        msgId: message.id,
      });
    }
    logger.info(
      { ...fields, event: 'notification_routed', recipients: decision.recipients },
      'notification_routed',
    );
  });
}
