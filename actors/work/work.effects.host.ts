/**
 * The work tracker's effects as a reaction to its log (ops/work-tracker.md "Events and wakes"): one durable
 * consumer on the projects' work records, `work_effects`, shared by every node of the fleet, so each
 * record's task events and seat wakes (assignments, comments) are delivered by one node and acknowledged only once delivered. A
 * node dying between a write's append and its effects leaves the record unacknowledged: the consumer hands
 * it to another node (or to this one when it comes back), which delivers it then. Ids come from the op_id,
 * so a redelivery stores each event and wake once within the bus's duplicate window.
 */
import type { Logger } from 'pino';
import {
  newEvent,
  publishEvent,
  RedeliverError,
  Streams,
  Subjects,
  TerminateError,
  type Bus,
  type DeliveredMessage,
  type Subscription,
} from '../../bus/index.js';
import { EventCategory, InboxMessage, uuidv5, WorkRecord } from '../../schema/index.js';
import { RateWindow, rateLimitedRecord } from '../rate-window.js';
import { clip } from '../text.js';
import { commentWakes, hasEffects, workEffects, type WorkEffects } from './work.effects.js';
import type { WorkContext, WorkStateView } from './work.types.js';

export interface WorkEffectsOptions {
  readonly bus: Bus;
  readonly view: WorkStateView;
  readonly context: () => WorkContext;
  readonly nodeId: string;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** The node's window of wakes on notice, shared with the webhook router (default: its own). */
  readonly wakes?: RateWindow;
}

/** Shared by every node: one delivery per record across the fleet; a trim stays below what it owes. */
export const EFFECTS_DURABLE = 'work_effects';
const CATCH_UP_MS = 10_000;
/** A failed delivery is tried again after this, doubling per attempt up to the cap. */
const RETRY_MS = 500;
const RETRY_CAP_MS = 30_000;
const eventNamespace = '0c3a8f3e-5b7d-5e1a-9a42-6d1f0e2b7c91';
const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** The most of a comment's body a wake carries; the seat reads the rest with `work_get`. */
const COMMENT_EXCERPT_MAX = 2_000;

/**
 * Opens the consumer. A durable made now starts at the log's end: records appended before it existed had
 * their effects delivered by the writer of the time, and a fleet's history must not wake anyone again.
 */
export function startWorkEffects(opts: WorkEffectsOptions): Promise<Subscription> {
  const { bus, view, logger } = opts;
  const now = opts.now ?? (() => new Date());
  const wakes = opts.wakes ?? new RateWindow();

  const wake = (handle: string, message: InboxMessage): Promise<unknown> =>
    bus.publish(Subjects.agentInbox(handle), encoder.encode(JSON.stringify(message)), {
      msgId: message.id,
    });

  const deliver = async (record: WorkRecord, effects: WorkEffects): Promise<void> => {
    const { outcome, item } = effects;
    const trace = {
      trace_id: uuidv5(eventNamespace, `trace:${record.op_id}`).replaceAll('-', ''),
      parent_span_id: null,
    };
    const kinds = opts.context().seats;
    for (const [i, task] of effects.events.entries()) {
      const event = newEvent({
        type: task.type,
        category: EventCategory.Task,
        source: `${opts.nodeId}/work`,
        summary: task.summary,
        actor: record.actor,
        payload: { ...task.payload, op_id: record.op_id, position: outcome.position },
        ...(task.seat !== null && kinds.get(task.seat) === 'agent' ? { agent_id: task.seat } : {}),
        trace,
      });
      await publishEvent(bus, { ...event, id: uuidv5(eventNamespace, `${record.op_id}:${i}:${task.type}`) });
    }
    for (const handle of effects.assigned) {
      if (kinds.get(handle) !== 'agent') {
        logger.debug(
          { event: 'work_wake_human_skipped', seat: handle, item: outcome.key },
          'human seat not woken',
        );
        continue;
      }
      const message = InboxMessage.parse({
        id: `work:${record.op_id}:${handle}`,
        kind: 'assignment',
        source: `work:${outcome.key}`,
        received_at: now().toISOString(),
        trace_id: trace.trace_id,
        summary: `You were assigned ${outcome.key}: ${item.fields.title}`.trim(),
        payload: {
          item: { id: item.id, key: item.key, title: item.fields.title, status: item.status },
          by: record.actor,
          hint: `Read it with work_get ${outcome.key}; report with work_comment and move it with work_move.`,
        },
      });
      await wake(handle, message);
    }
    if (effects.comment) {
      const { comment } = effects.comment;
      // A person's comment answers what the seat asked them (InboxMessage.from).
      const from = kinds.get(comment.author) === 'human' ? comment.author : null;
      const excerpt = clip(comment.body, COMMENT_EXCERPT_MAX);
      const limit = opts.context().notificationRateLimit ?? 0;
      for (const { handle, kind } of commentWakes(effects.comment, kinds)) {
        // A comment is a notification: two seats answering each other's comments are held to the limit.
        if (!wakes.admit(handle, limit, now().getTime())) {
          await publishEvent(
            bus,
            rateLimitedRecord({
              notification: `work:${record.op_id}`,
              vendor: 'work',
              recipient: handle,
              limit,
              about: `a comment on ${outcome.key}`,
              source: `${opts.nodeId}/work`,
              trace_id: trace.trace_id,
            }),
          );
          logger.info(
            { event: 'notification_skipped', seat: handle, item: outcome.key, reason: 'rate_limited', limit },
            'notification_skipped',
          );
          continue;
        }
        const message = InboxMessage.parse({
          id: `work:${record.op_id}:${handle}`,
          kind,
          source: `work:${outcome.key}`,
          received_at: now().toISOString(),
          trace_id: trace.trace_id,
          summary: `${comment.author} ${kind === 'mention' ? 'mentioned you on' : 'commented on'} ${outcome.key}: ${item.fields.title}`, // prettier-ignore
          payload: {
            item: { id: item.id, key: item.key, title: item.fields.title, status: item.status },
            comment: { id: comment.id, author: comment.author, at: comment.at, body: excerpt },
            by: record.actor,
            hint: `Read the thread with work_get ${outcome.key}; answer with work_comment.`,
          },
          from,
        });
        await wake(handle, message);
      }
    }
  };

  const handle = async (msg: DeliveredMessage): Promise<void> => {
    let record: WorkRecord;
    try {
      record = WorkRecord.parse(JSON.parse(decoder.decode(msg.data)));
    } catch (error) {
      // The projection skips it too: nothing was folded, so nothing is set off.
      logger.error({ event: 'work_record_unreadable', seq: msg.seq, err: error }, 'work record unreadable');
      throw new TerminateError('unreadable work record', { cause: error });
    }
    if (!hasEffects(record)) return;
    try {
      if (!(await view.until(msg.seq, CATCH_UP_MS)))
        throw new Error(`work projection did not reach sequence ${msg.seq}`);
      const effects = workEffects(view.state(), record, msg.seq);
      if (effects) await deliver(record, effects);
    } catch (error) {
      const delayMs = Math.min(RETRY_CAP_MS, RETRY_MS * 2 ** (msg.deliveryCount - 1));
      logger.error(
        { err: error, op_id: record.op_id, seq: msg.seq, deliveries: msg.deliveryCount, retry_ms: delayMs },
        'work effects not delivered',
      );
      throw new RedeliverError('work effects not delivered', delayMs, { cause: error });
    }
  };

  return bus.consume(
    Streams.Work,
    { durable: EFFECTS_DURABLE, filterSubject: Subjects.workProjects, deliverPolicy: 'new' },
    handle,
  );
}
