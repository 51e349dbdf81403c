/** tracker-b: `X-tracker-b-Signature` = lowercase hex HMAC-SHA256(webhook_secret, raw body), no prefix. */
import { verifyHexHmac, type Verdict } from './verify.js';

export const TrackerBHeaders = {
  signature: 'x-tracker-b-signature',
  event: 'x-tracker-b-event',
  delivery: 'x-tracker-b-delivery',
} as const;

export function verifyTrackerB(
  secret: string,
  headers: Readonly<Record<string, string>>,
  body: Buffer,
): Verdict {
  return verifyHexHmac(secret, headers[TrackerBHeaders.signature], '', body);
}
