/** tracker-a self-hosted deliveries: `X-Hub-Signature: sha256=<hex>` over the raw body. */
import { verifyHexHmac, type Verdict } from './verify.js';

export const TrackerAHeaders = {
  signature: 'x-hub-signature',
  /** The vendor's unique id of one delivery (retries repeat it). */
  delivery: 'x-tracker-a-webhook-identifier',
} as const;

export function verifyTrackerA(
  secret: string,
  headers: Readonly<Record<string, string>>,
  body: Buffer,
): Verdict {
  return verifyHexHmac(secret, headers[TrackerAHeaders.signature], 'sha256=', body);
}
