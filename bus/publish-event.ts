/**
 * The one way to put an engine event on the bus: the type must be on the admission list
 * (`schema/events/categories.ts`) with the category the map gives it. A stored type is published on
 * `svc.events.<type>` with the record id as message id (a repeat inside the window is not stored twice); a
 * stream-only type is emitted (core, never stored); anything else is refused before it reaches the stream.
 */
import { admissionOf, categoryOf, type EventRecord } from '../schema/index.js';
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

/**
 * Publishes (or, for a stream-only type, emits) one event; resolves with the ack, or null when emitted.
 * `emitHeaders` go with an emitted one (a stored one carries none from here).
 */
export async function publishEvent(
  bus: Bus,
  record: EventRecord,
  emitHeaders?: Headers,
): Promise<PubAck | null> {
  const admission = admissionOf(record.type);
  if (admission === 'refused')
    throw new UnmappedEventTypeError(
      `event type "${record.type}" has no category: add it to schema/events/categories.ts and ops/event-types.md`,
    );
  const data = new TextEncoder().encode(JSON.stringify(record));
  if (admission === 'emit') {
    bus.emit(Subjects.liveEvent(record.type), data, emitHeaders);
    return null;
  }
  const category = categoryOf(record.type);
  if (record.category !== category)
    throw new UnmappedEventTypeError(
      `event type "${record.type}" belongs to category "${category}", not "${record.category}"`,
    );
  return bus.publish(Subjects.event(record.type), data, { msgId: record.id });
}
