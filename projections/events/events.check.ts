/**
 * The replay hot path's check of a decoded event head: the same rules as the zod `EventRow` schema, written
 * out (zod costs more than the JSON parse itself at a million events). A property test holds the two equal.
 * Returns a fresh object with exactly the row's fields, or null.
 */
import { EventCategory, type EventRow } from '../../schema/index.js';

const categories = new Set<string>(Object.values(EventCategory));
const str = (v: unknown): v is string => typeof v === 'string';

export function checkRow(raw: unknown): EventRow | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const o = raw as Record<string, unknown>;
  const {
    id,
    type,
    source,
    timestamp,
    category,
    summary,
    actor,
    trace_id,
    span_id,
    parent_span_id,
    failed,
    agent_id,
    topic,
  } = o;
  if (!str(id) || id.length === 0 || !str(type) || type.length === 0) return null;
  if (!str(source) || !str(timestamp) || !str(summary) || !str(actor) || !str(trace_id) || !str(span_id))
    return null;
  if (!str(category) || !categories.has(category)) return null;
  if (parent_span_id !== null && !str(parent_span_id)) return null;
  if (typeof failed !== 'boolean') return null;
  if (agent_id !== undefined && !str(agent_id)) return null;
  if (topic !== undefined && !str(topic)) return null;
  const row: EventRow = {
    id,
    type,
    source,
    timestamp,
    category: category as EventCategory,
    summary,
    actor,
    trace_id,
    span_id,
    parent_span_id,
    failed,
  };
  if (agent_id !== undefined) row.agent_id = agent_id;
  if (topic !== undefined) row.topic = topic;
  return row;
}
