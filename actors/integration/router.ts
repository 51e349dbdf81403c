/**
 * The router of inbound notifications, run by the integration actor on each parsed delivery: it decides
 * recipients (routing.ts), keeps wiki page watchers in a KV bucket, and publishes one `InboxMessage` per
 * agent seat on `svc.agent.<handle>.inbox` (never for a human seat). Ids are per (notification, seat), so a
 * redelivered raw delivery stores nothing twice. A seat past `notification_rate_limit` (per minute) is not
 * woken: the skip is recorded as a `NotificationSkipped` event instead.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { Buckets, publishEvent, Subjects, type Bus, type Kv } from '../../bus/index.js';
import { deliveryTrace, InboxKind, InboxMessage, type InboundNotification } from '../../schema/index.js';
import type { People } from './people.js';
import { RateWindow, rateLimitedRecord } from '../rate-window.js';
import { routeNotification } from './routing.js';

export interface RouterOptions {
  readonly bus: Bus;
  people(): People;
  /** `notification_rate_limit` of the active document: wakes per seat per minute, 0 = no limit. */
  rateLimit?(): number;
  /** The node's window of wakes on notice, shared with the native tracker's comment wakes (default: its own). */
  readonly wakes?: RateWindow;
  readonly logger: Logger;
  /** The router's node id, the skip event's source prefix (default `router`). */
  readonly nodeId?: string;
}

export interface Router {
  /** Wakes the notification's recipients; resolves once every inbox message and skip record is durable. */
  route(n: InboundNotification): Promise<void>;
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

export async function openRouter(opts: RouterOptions): Promise<Router> {
  const { bus, logger } = opts;
  const watchers = await bus.kv({ name: Buckets.WikiWatchers, history: 4 });
  const window = opts.wakes ?? new RateWindow();
  // Notifications are independent; wiki watcher updates are compare-and-set, so calls may overlap.
  const route = async (n: InboundNotification): Promise<void> => {
    const people = opts.people();
    const pageId = n.pipeline === 'wiki' ? n.subject.id : null;
    const current = pageId !== null ? (await readWatchers(watchers, pageId)).handles : [];
    const decision = routeNotification(n, people, current);
    if (pageId !== null && decision.addWatchers.length > 0)
      await addWatchers(watchers, pageId, decision.addWatchers);
    const fields = { notification: n.id, step: decision.step };
    if (decision.dropped !== null) {
      // Debug: most deliveries address no seat, and the request line already records each one.
      logger.debug(
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
    const limit = opts.rateLimit?.() ?? 0;
    const woken: string[] = [];
    for (const handle of decision.recipients) {
      if (!window.admit(handle, limit, Date.now())) {
        await publishEvent(
          bus,
          rateLimitedRecord({
            notification: n.id,
            vendor: n.vendor,
            recipient: handle,
            limit,
            about: `${n.vendor} ${n.summary}`,
            source: `${opts.nodeId ?? 'router'}/router`,
            trace_id: trace,
          }),
        );
        logger.info(
          { ...fields, event: 'notification_skipped', seat: handle, reason: 'rate_limited', limit },
          'notification_skipped',
        );
        continue;
      }
      woken.push(handle);
      const message = InboxMessage.parse({
        id: `${n.id}:${handle}`,
        kind: decision.mentioned.includes(handle) ? InboxKind.Mention : InboxKind.Notification,
        source: `webhook:${n.vendor}`,
        received_at: n.received_at,
        trace_id: trace,
        summary: n.summary,
        payload: { notification: n },
        // A human's message: the turn it wakes answers the questions the seat asked them.
        ...(decision.trigger !== null && people.directory.seats.get(decision.trigger)?.kind === 'human'
          ? { from: decision.trigger }
          : {}),
      });
      await bus.publish(Subjects.agentInbox(handle), encoder.encode(JSON.stringify(message)), {
        msgId: message.id,
      });
    }
    logger.info({ ...fields, event: 'notification_routed', recipients: woken }, 'notification_routed');
  };
  return { route };
}
