/**
 * codehost-b: Standard Webhooks. `webhook-signature` holds space-separated `v1,<base64>` entries, any
 * one of which may match HMAC-SHA256(key, `{webhook-id}.{webhook-timestamp}.{body}`); the key is the
 * base64 after `whsec_`. Timestamps outside 5 minutes either way are refused.
 */
import { B64_SHA256, checkTimestamp, hmacSha256, refuse, safeEqual, type Verdict } from './verify.js';

export const CodehostBHeaders = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** The signing key of a `whsec_…` secret; null when it is not base64. */
export function standardWebhooksKey(secret: string): Buffer | null {
  const b64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return null;
  const key = Buffer.from(b64, 'base64');
  return key.length === 0 ? null : key;
}

export function verifyCodehostB(
  secret: string,
  headers: Readonly<Record<string, string>>,
  body: Buffer,
  nowMs: number,
): Verdict {
  const id = headers[CodehostBHeaders.id];
  const stamp = headers[CodehostBHeaders.timestamp];
  const header = headers[CodehostBHeaders.signature];
  if (header === undefined || header.trim() === '') return refuse('missing_signature');
  if (id === undefined || id === '') return refuse('missing_delivery_id');
  if (id.length > 256) return refuse('malformed_delivery_id');
  const fresh = checkTimestamp(stamp, nowMs);
  if (!fresh.ok) return fresh;
  const key = standardWebhooksKey(secret);
  if (key === null) return refuse('bad_signature');
  const expected = hmacSha256(key, `${id}.${stamp}.`, body);
  let sawV1 = false;
  let matched = false;
  // Every entry is checked (no early exit) so timing says nothing about which one matched.
  for (const entry of header.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const b64 = entry.slice(comma + 1);
    if (!B64_SHA256.test(b64)) continue;
    sawV1 = true;
    if (safeEqual(Buffer.from(b64, 'base64'), expected)) matched = true;
  }
  if (matched) return { ok: true };
  return refuse(sawV1 ? 'bad_signature' : 'unsupported_scheme');
}
