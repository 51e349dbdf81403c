/** Dedup keys: the vendor's delivery id where it sends one, the spec's wiki key, else a body digest. */
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

export function digestKey(body: Buffer): string {
  return `sha256:${bodyDigest(body)}`;
}

export { at as pathOf, isRecord, scalar };
