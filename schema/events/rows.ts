/**
 * What history reads answer: feed rows (an event record without its payload, `failed` and `category`
 * decided by the map), pages of `/events`, one event, one trace, and the `coverage` every history answer
 * carries (spec "Read routes").
 */
import { z } from 'zod';
import { categoryOf } from './categories.js';
import { EventRecord, isFailed } from './record.js';

export const EventRow = EventRecord.omit({ payload: true });
export type EventRow = z.infer<typeof EventRow>;

/** The payload-free row of a record; `failed` counts failure types, `category` is the map's. */
export function toRow(record: EventRecord): EventRow {
  const { payload: _payload, ...row } = record;
  return { ...row, category: categoryOf(record.type) ?? record.category, failed: isFailed(record) };
}

/** The record as fetched by id or trace: with payload, `failed` and `category` decided as for rows. */
export function toFullEvent(record: EventRecord): EventRecord {
  return { ...record, category: categoryOf(record.type) ?? record.category, failed: isFailed(record) };
}

/** Which nodes answered a history question (one node while history is not scattered across a fleet). */
export const Coverage = z.object({
  nodes: z.array(z.object({ id: z.string(), answered: z.boolean(), error: z.string().optional() })),
  complete: z.boolean(),
});
export type Coverage = z.infer<typeof Coverage>;

/** The exclusive keyset cursor of `/events`: both halves or neither. */
export const EventsCursor = z.object({ before_time: z.string(), before_id: z.string() });
export type EventsCursor = z.infer<typeof EventsCursor>;

export const EventsPage = z.object({
  rows: z.array(EventRow),
  /** True only when no older row exists (then `next` is null). */
  exhausted: z.boolean(),
  next: EventsCursor.nullable(),
  coverage: Coverage,
});
export type EventsPage = z.infer<typeof EventsPage>;

export const TraceAnswer = z.object({
  trace_id: z.string(),
  /** Oldest first, at most 500. */
  events: z.array(EventRecord),
  /** Every event of the trace in history, also those past the 500 returned. */
  total: z.number().int().nonnegative(),
  coverage: Coverage,
});
export type TraceAnswer = z.infer<typeof TraceAnswer>;

export const EventAnswer = EventRecord.extend({ coverage: Coverage });
export type EventAnswer = z.infer<typeof EventAnswer>;
