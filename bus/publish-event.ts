/**
 * The one way to put an engine event on the bus: the type must be on the admission list
 * (`schema/events/categories.ts`) and the record must carry the category it gives. A stored type is published
 * on `svc.events.<type>` with the record id as message id (a repeat inside the window is not stored twice); a
 * stream-only type is emitted (core, never stored); anything else is refused before it reaches the stream.
 * The architecture test keeps every other publish off `svc.events.` subjects.
 */
import { admissionOf, recordCategoryOf, type EventCategory, type EventRecord } from '../schema/index.js';
import type { Bus, Headers, PubAck } from './bus.js';
import { BusError } from './errors.js';
import { Subjects } from './subjects.js';

/**
 * On a live frame: the node that sent it when that node folds its own frames into its read models as it
 * sends them (typed, unchecked), so its subscription skips them.
 */
export const LiveOriginHeader = 'svc-origin-node';

/** The type has no category (not admitted), or the record names another category than the map. */
export class UnmappedEventTypeError extends BusError {
  override name = 'UnmappedEventTypeError';
}

export interface PublishEventOptions {
  /** Sent with the event, stored or emitted (a seat's lease epoch, a live frame's origin node). */
  readonly headers?: Headers;
  /** A stored type only: refused (WrongLastSequenceError) unless its subject's last sequence is this. */
  readonly expectedLastSubjectSeq?: number;
}

/** The category a record of `type` must carry; throws for a type that may not be published. */
export function admittedCategory(type: string): EventCategory {
  const category = recordCategoryOf(type);
  if (category === null)
    throw new UnmappedEventTypeError(
      `event type "${type}" has no category: add it to schema/events/categories.ts and ops/event-types.md`,
    );
  return category;
}

/** Refuses, before anything is sent, a record whose type has no category or that names another. */
function checkEventCategory(record: Pick<EventRecord, 'type' | 'category'>): void {
  const category = admittedCategory(record.type);
  if (record.category !== category)
    throw new UnmappedEventTypeError(
      `event type "${record.type}" belongs to category "${category}", not "${record.category}"`,
    );
}

/** Publishes (or, for a stream-only type, emits) one event; resolves with the ack, or null when emitted. */
export async function publishEvent(
  bus: Bus,
  record: EventRecord,
  opts: PublishEventOptions = {},
): Promise<PubAck | null> {
  checkEventCategory(record);
  const data = new TextEncoder().encode(JSON.stringify(record));
  if (admissionOf(record.type) === 'emit') {
    bus.emit(Subjects.liveEvent(record.type), data, opts.headers);
    return null;
  }
  return bus.publish(Subjects.event(record.type), data, {
    msgId: record.id,
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.expectedLastSubjectSeq === undefined
      ? {}
      : { expectedLastSubjectSeq: opts.expectedLastSubjectSeq }),
  });
}
