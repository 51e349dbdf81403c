/**
 * The event record (spec "Event record"): what every engine event published on `svc.events.<type>` carries.
 * The stored message's data is one `EventRecord` as JSON; `payload` is kept in the store and returned only
 * when an event is fetched by id or by trace (listings never carry it).
 */
import { z } from 'zod';
import { EventCategory } from './category-set.js';

const categories = Object.values(EventCategory) as [EventCategory, ...EventCategory[]];

export const EventRecord = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  /** The subsystem or node that published it (`node-0/webhooks`, `seat/<handle>`). */
  source: z.string(),
  /** RFC 3339; compared as instants, never as strings. */
  timestamp: z.string(),
  category: z.enum(categories),
  summary: z.string(),
  /** Who caused it: a seat handle, an operator token id, `system`. */
  actor: z.string(),
  trace_id: z.string(),
  span_id: z.string(),
  parent_span_id: z.string().nullable(),
  /** The event's own failure flag; `isFailed` also counts failure types. */
  failed: z.boolean(),
  /** The seat concerned (its handle); absent when none. */
  agent_id: z.string().optional(),
  topic: z.string().optional(),
  payload: z.record(z.string(), z.unknown()),
});
export type EventRecord = z.infer<typeof EventRecord>;

/** A plain object, as `z.record` takes one: not an array, a class instance or null. */
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * `EventRecord` with its payload taken as the object it is, unwalked: for readers that check the payload of
 * every type they fold with that type's schema (the read models), so a payload (a phase record holds every
 * round) is walked once, not first key by key as a record of unknowns and again by its schema. Accepts what
 * `EventRecord` accepts.
 */
export const EventRecordOpenPayload = EventRecord.extend({
  payload: z.custom<Record<string, unknown>>(isPlainObject, 'expected an object'),
});

/** Types that are failures whatever their own flag says (spec "Event record"). */
export const FailureTypes: ReadonlySet<string> = new Set([
  'sandbox_run_failed',
  'llm_unavailable',
  'budget_exhausted',
  'turn.guard_breach',
]);

export function isFailed(event: Pick<EventRecord, 'type' | 'failed'>): boolean {
  return event.failed || FailureTypes.has(event.type);
}
