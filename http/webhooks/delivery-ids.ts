/**
 * Dedup keys: the vendor's delivery id where it sends one, the spec's wiki key, the relay tracker-a event's
 * own marks, else a body digest.
 */
import { bodyDigest } from './verify.js';
import { isRecord, wikiPage } from '../../schema/index.js';

const scalar = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null;
const at = (v: unknown, ...path: string[]): unknown => {
  let cur = v;
  for (const key of path) cur = isRecord(cur) ? cur[key] : undefined;
  return cur;
};

/** A header's value as a dedup key when it looks like an id (bounded, printable). */
export function headerId(value: string | undefined): string | null {
  return value !== undefined && /^[\x21-\x7e]{1,200}$/.test(value) ? value : null;
}

/** The wiki event type of a payload (`page_updated`, `avi:confluence:updated:page`, ...). */
export function wikiEventType(json: unknown): string | null {
  return scalar(at(json, 'event')) ?? scalar(at(json, 'webhookEvent')) ?? scalar(at(json, 'eventType'));
}

/** The id of the page a wiki payload is about (a comment's: its page's). */
export function wikiPageId(json: unknown): string | null {
  return scalar(at(wikiPage(json), 'id'));
}

/** Spec: wiki deliveries dedup on (timestamp, page id, event type); a body digest when one is missing. */
export function wikiDedupKey(json: unknown, body: Buffer, eventFallback: string | null = null): string {
  // The relay stamps its events `eventCreatedDate` (and a retry may add envelope fields, so no digest).
  const ts = scalar(at(json, 'timestamp')) ?? scalar(at(json, 'eventCreatedDate'));
  const page = wikiPageId(json);
  const event = wikiEventType(json) ?? eventFallback;
  return ts !== null && page !== null && event !== null
    ? `${ts}:${page}:${event}`
    : `sha256:${bodyDigest(body)}`;
}

/**
 * A relay tracker-a event's key: the issue, the event type and what marks this occurrence — the event's
 * `timestamp`, its changelog's id, a comment's id and time, a created issue's creation time. The relay adds
 * envelope fields when it delivers again (`retryContext`, a new context token), so a digest would take a
 * retry for a new event; a digest only when the payload names none of these.
 */
export function trackerAEventKey(json: unknown, body: Buffer, event: string): string {
  const issue = scalar(at(json, 'issue', 'id')) ?? scalar(at(json, 'issue', 'key'));
  const mark = trackerAMark(json, event);
  return issue !== null && mark !== null ? `${issue}:${event}:${mark}` : digestKey(body);
}

function trackerAMark(json: unknown, event: string): string | null {
  const ts = scalar(at(json, 'timestamp'));
  if (ts !== null) return ts;
  const change = scalar(at(json, 'changelog', 'id'));
  if (change !== null) return `changelog:${change}`;
  // A comment edit keeps its id: its time tells the edits apart.
  const comment = scalar(at(json, 'comment', 'id'));
  const when = scalar(at(json, 'comment', 'updated')) ?? scalar(at(json, 'comment', 'created'));
  if (comment !== null && when !== null) return `comment:${comment}@${when}`;
  // An issue is created once; other events without a mark of their own (a view) may repeat.
  const created = scalar(at(json, 'issue', 'fields', 'created'));
  return event.endsWith(':created:issue') && created !== null ? `created:${created}` : null;
}

export function digestKey(body: Buffer): string {
  return `sha256:${bodyDigest(body)}`;
}

export { at as pathOf, isRecord, scalar };
